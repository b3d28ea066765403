import { Pool, type QueryConfig } from 'pg';
import { channelIdOf, createChannel } from '../../src/channels/channel.service';
import { changeListPage } from '../../src/changes/page';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';

/**
 * The change list runs as a named prepared statement, which PostgreSQL plans generically after
 * five executions. A generic plan knows neither the page's size nor its rows; the listing mark of a
 * 500-row page must still find its rows by primary key, not by scanning the table (as it did,
 * estimating the parameter LIMIT at a tenth of the table: 42 ms against 11 ms at 20,000 rows).
 * And whichever index it reads the page through, it starts at the oldest pending record, never
 * stepping over the records acknowledged before it (a drain's pages grew from 30 ms to 90). And it
 * is planned once per connection, not at every poll: its custom plans cost what its generic plan
 * costs, so PostgreSQL keeps the generic one (planning was 40 % of a poll's time in the database).
 */
const RECORDS = 5_000;

type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Rows Removed by Filter'?: number;
  'Index Cond'?: string;
  Plans?: PlanNode[];
};
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The text and values of the page statement changeListPage sends, captured on its way to the pool. */
async function pageStatement(db: TestDatabase, limit: number, since?: Date): Promise<{ text: string; values: unknown[] }> {
  let captured: { text: string; values: unknown[] } | undefined;
  const sql = new Proxy(db.sql, {
    get(target, property, receiver) {
      if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
      return (config: QueryConfig | string, ...rest: unknown[]) => {
        if (typeof config === 'object' && config.name !== undefined) captured = { text: config.text, values: config.values ?? [] };
        return (target.query as (...args: unknown[]) => unknown)(config, ...rest);
      };
    },
  }) as Pool;
  await changeListPage({ sql }, 'products', { key: 'token:plan-test', channelId: null }, { limit, since: since ?? null });
  if (!captured) throw new Error('the page statement was not captured');
  return captured;
}

describe.each(backends)('the change list statement on %s', (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(backend);
    await db.sql.query(
      `INSERT INTO products (external_id, data, field_revisions, changed_fields)
       SELECT 'P' || g, jsonb_build_object('name', 'Product ' || g), '{"name": 1}', ARRAY['name'] FROM generate_series(1, ${RECORDS}) AS g`,
    );
    await db.sql.query('ANALYZE products');
  }, 120_000);
  afterAll(() => db?.close());

  /** The plan of the page statement as a generic plan, run (ANALYZE) or not, in a transaction rolled back. */
  async function genericPlan(limit: number, analyze: boolean, since?: Date): Promise<PlanNode[]> {
    const { text, values } = await pageStatement(db, limit, since);
    const client = await db.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
      // Each parameter's type is the one its cast in the statement gives it, as when pg prepares it.
      await client.query(`PREPARE page_plan_test AS ${text}`);
      const args = values.map((v) => (typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : String(v))).join(', ');
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        `EXPLAIN (FORMAT JSON${analyze ? ', ANALYZE' : ''}) EXECUTE page_plan_test (${args})`,
      );
      return nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan);
    } finally {
      await client.query('ROLLBACK');
      await client.query('DEALLOCATE page_plan_test'); // a prepared statement outlives the transaction
      client.release();
    }
  }

  it('marks a page by primary key in a generic plan, never by scanning the table', async () => {
    const nodes = await genericPlan(500, false);
    expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'products')).toEqual([]);
    expect(nodes.some((n) => n['Node Type'] === 'ModifyTable')).toBe(true);
  });

  it('never steps over acknowledged records, even when the planner reads the full (updated_at, id) index', async () => {
    // Statistics that say every record is pending, and a full index smaller than the partial one
    // (rebuilt, where the partial index keeps the entries of earlier pending rounds): the planner
    // reads the page through the full index. Then the oldest half is acknowledged.
    for (let i = 0; i < 3; i++) await db.sql.query(`UPDATE products SET pending = (${i} % 2 = 0)`);
    await db.sql.query('UPDATE products SET pending = true');
    await db.sql.query('REINDEX INDEX products_updated_at_id_idx');
    await db.sql.query('VACUUM ANALYZE products');
    await db.sql.query(
      `UPDATE products SET pending = false WHERE id IN (SELECT id FROM products ORDER BY updated_at, id LIMIT ${RECORDS / 2})`,
    );
    const nodes = await genericPlan(500, true);
    const pageScans = nodes.filter((n) => n['Relation Name'] === 'products' && n['Index Name'] !== undefined);
    expect(pageScans.map((n) => n['Index Name'])).toContain('products_updated_at_id_idx');
    expect(pageScans.map((n) => n['Rows Removed by Filter'] ?? 0)).toEqual(pageScans.map(() => 0));
  });

  it('starts a page after `since` at `since`, not at the oldest pending record', async () => {
    await db.sql.query('UPDATE products SET pending = true');
    await db.sql.query('ANALYZE products');
    const middle = (
      await db.sql.query<{ updated_at: Date }>(`SELECT updated_at FROM products ORDER BY updated_at, id OFFSET ${RECORDS / 2} LIMIT 1`)
    ).rows[0]!.updated_at;
    const nodes = await genericPlan(50, true, middle);
    const scans = nodes.filter(
      (n) => n['Relation Name'] === 'products' && n['Index Name'] !== undefined && n['Index Cond']?.includes('updated_at >'),
    );
    expect(scans).not.toEqual([]);
    // One lower bound: `since`'s. With the oldest pending record's beside it, the scan started there.
    for (const scan of scans) expect(scan['Index Cond']).not.toContain('>=');
  });

  it('is planned once per connection, on channel default and on another channel, not at every poll', async () => {
    const channelId = await channelIdOf(db.prisma, (await createChannel(db.prisma, 'plan-test', 'all')).name);
    const pool = new Pool({ connectionString: db.url, max: 1 });
    try {
      for (const reader of [
        { key: 'token:plan-default', channelId: null },
        { key: 'token:plan-channel', channelId },
      ])
        for (let i = 0; i < 8; i++) await changeListPage({ sql: pool }, 'products', reader, { limit: 50 });
      const { rows } = await pool.query<{ generic_plans: string; custom_plans: string; statement: string }>(
        `SELECT generic_plans, custom_plans, statement FROM pg_prepared_statements WHERE statement LIKE '%WITH page AS%'`,
      );
      expect(rows).toHaveLength(2);
      // Five custom plans to compare with, then the generic plan for every later call.
      for (const row of rows) expect(Number(row.generic_plans)).toBeGreaterThanOrEqual(3);
    } finally {
      await pool.end();
    }
  });
});
