import { createHash } from 'node:crypto';
import type { EmbeddedSql } from './embedded-thread';
import { readMigrationList } from './migrator';

/**
 * Whether `_prisma_migrations` already records every committed migration as applied, with the
 * same checksum (SHA-256 of migration.sql, as Prisma computes it), and nothing else: no failed or
 * unfinished row, no migration unknown to this build. Then the schema engine (about a second to
 * instantiate) has nothing to do and the start skips it; in any other case the engine runs and
 * decides, as before.
 */
export async function migrationsUpToDate(pglite: Pick<EmbeddedSql, 'query'>): Promise<boolean> {
  const table = await pglite.query<{ exists: boolean }>("SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS exists");
  if (!table.rows[0]?.exists) return false;
  const { rows } = await pglite.query<{ migration_name: string; checksum: string; finished: boolean; rolled_back: boolean }>(
    'SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back FROM _prisma_migrations',
  );
  const applied = new Map<string, string>();
  for (const row of rows) {
    if (row.rolled_back) continue;
    if (!row.finished || applied.has(row.migration_name)) return false;
    applied.set(row.migration_name, row.checksum);
  }
  const local = (await readMigrationList()).migrationDirectories;
  if (local.length !== applied.size) return false;
  return local.every(({ path: name, migrationFile: { content } }) => {
    if (content.tag !== 'ok') return false;
    return applied.get(name) === createHash('sha256').update(content.value, 'utf8').digest('hex');
  });
}
