import { Gauge, type Registry } from 'prom-client';
import { Prisma, type PrismaClient } from '../generated/prisma/client';

/** The tables that grow with traffic and that retention prunes (ADRs 0021, 0031). */
export const RETAINED_TABLES = ['outbound_queue_items', 'delivery_attempts', 'sync_failures', 'change_history'] as const;

/** Each table's exact count, written out: a name enters SQL text only as the code's own text. */
const COUNT_ROWS: Record<(typeof RETAINED_TABLES)[number], Prisma.Sql> = {
  outbound_queue_items: Prisma.sql`(SELECT count(*) FROM outbound_queue_items)`,
  delivery_attempts: Prisma.sql`(SELECT count(*) FROM delivery_attempts)`,
  sync_failures: Prisma.sql`(SELECT count(*) FROM sync_failures)`,
  change_history: Prisma.sql`(SELECT count(*) FROM change_history)`,
};

/**
 * Rows and bytes (indexes and TOAST included) of the retained tables, read when scraped. Rows are
 * PostgreSQL's live-row estimate once (auto)analyze has seen the table, which it does long before
 * the table is large, and costs nothing on millions of rows; until then, and on the embedded store
 * (no autovacuum), they are counted, which is cheap at that size.
 */
export function registerTableGauges(registry: Registry, prisma: PrismaClient): void {
  let sizes: Promise<Array<{ table: string; rows: number; bytes: number }>> | undefined;
  let readAt = 0;
  // Both gauges of one scrape are filled from one query.
  const read = () => {
    if (sizes && performance.now() - readAt < 1_000) return sizes;
    readAt = performance.now();
    const perTable = RETAINED_TABLES.map(
      (t) =>
        Prisma.sql`SELECT ${t}::text AS table,
                    (CASE WHEN COALESCE(s.last_autoanalyze, s.last_analyze) IS NOT NULL THEN s.n_live_tup
                          ELSE ${COUNT_ROWS[t]} END)::float8 AS rows,
                    pg_total_relation_size(${t}::regclass)::float8 AS bytes
               FROM (SELECT 1) AS one LEFT JOIN pg_stat_user_tables s ON s.relid = ${t}::regclass`,
    );
    const query = prisma.$queryRaw<Array<{ table: string; rows: number; bytes: number }>>(Prisma.join(perTable, ' UNION ALL '));
    // A failed read (the database away) is not kept: the next scrape asks again.
    sizes = query.catch((error: unknown) => {
      sizes = undefined;
      throw error;
    });
    return sizes;
  };
  new Gauge({
    name: 'sync_gateway_table_rows',
    help: 'Rows per table that retention prunes (an estimate on analyzed PostgreSQL tables, else exact).',
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      for (const row of await read()) this.set({ table: row.table }, row.rows);
    },
  });
  new Gauge({
    name: 'sync_gateway_table_bytes',
    help: 'On-disk size per table that retention prunes, indexes and TOAST included.',
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      for (const row of await read()) this.set({ table: row.table }, row.bytes);
    },
  });
}
