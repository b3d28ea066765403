import type { Pool, QueryConfig } from 'pg';
import { changeListPage } from '../../src/changes/page';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';

/**
 * The change list runs as a named prepared statement, which PostgreSQL plans generically after
 * five executions. A generic plan knows neither the page's size nor its rows; the listing mark of a
 * 500-row page must still find its rows by primary key, not by scanning the table (as it did,
 * estimating the parameter LIMIT at a tenth of the table: 42 ms against 11 ms at 20,000 rows).
 */
const RECORDS = 5_000;

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; Plans?: PlanNode[] };
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The text and values of the page statement changeListPage sends, captured on its way to the pool. */
async function pageStatement(db: TestDatabase, limit: number): Promise<{ text: string; values: unknown[] }> {
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
  await changeListPage({ sql }, 'products', { key: 'token:plan-test', channelId: null }, { limit });
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

  it('marks a page by primary key in a generic plan, never by scanning the table', async () => {
    const { text, values } = await pageStatement(db, 500);
    const client = await db.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
      const types = values.map((_, i) => (i === 0 ? 'text' : 'int')).join(', ');
      await client.query(`PREPARE page_plan_test (${types}) AS ${text}`);
      const args = values.map((v) => (typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : String(v))).join(', ');
      const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        `EXPLAIN (FORMAT JSON) EXECUTE page_plan_test (${args})`,
      );
      const nodes = nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan);
      expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'products')).toEqual([]);
      expect(nodes.some((n) => n['Node Type'] === 'ModifyTable')).toBe(true);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});
