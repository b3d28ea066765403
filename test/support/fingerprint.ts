import type { PrismaClient } from '../../src/generated/prisma/client';

/**
 * Every row of every table (migrations and tokens aside), hashed in one statement: nothing a
 * rejected request does may change it.
 */
export async function fingerprint(prisma: PrismaClient): Promise<string> {
  const tables = await prisma.$queryRawUnsafe<Array<{ name: string }>>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename NOT IN ('_prisma_migrations', 'api_tokens') ORDER BY 1`,
  );
  const parts = tables.map(
    ({ name }) => `SELECT '${name}:' || md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS h FROM "${name}" t`,
  );
  const rows = await prisma.$queryRawUnsafe<Array<{ h: string }>>(parts.join(' UNION ALL '));
  return rows
    .map((r) => r.h)
    .sort()
    .join(',');
}
