import { PrismaPg } from '@prisma/adapter-pg';
import { Client } from 'pg';
import { exportToPostgres } from '../../src/db/export-to-postgres';
import { PrismaClient } from '../../src/generated/prisma/client';
import { createSecretBox } from '../../src/webhooks/secret-box';
import { createPostgresDatabase, type TestDatabase } from '../support/database';
import { openEmbeddedTestStore, observableState, seedInstallation, tableCounts } from '../support/embedded-store';
import { startTestServer, type TestServer } from '../support/http';
import { runCli } from '../support/process';

const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

onPostgres('export of the embedded store to PostgreSQL', () => {
  const key = Buffer.alloc(32, 9);
  let source: Awaited<ReturnType<typeof openEmbeddedTestStore>>;
  let api: TestServer;
  const databases: Array<{ drop(): Promise<void> }> = [];

  const freshDatabase = async () => {
    const database = await createPostgresDatabase();
    databases.push(database);
    return database.url;
  };

  beforeAll(async () => {
    source = await openEmbeddedTestStore();
    api = await startTestServer(source.asTestDatabase(), { secrets: createSecretBox(key) });
    await seedInstallation(api, source.db.prisma);
  });
  afterAll(async () => {
    await api.close();
    await source.db.close();
    await source.remove();
    for (const database of databases) await database.drop();
  });

  it('copies every table; the same API answers the same change lists, acknowledges there and goes on numbering', async () => {
    const expected = { counts: await tableCounts(source.db.prisma), state: await observableState(api, source.db.prisma, api.token) };
    const url = await freshDatabase();

    const copied = await exportToPostgres(source.db, url);

    // Pending counts are not copied: the target's triggers count the rows as they arrive (ADR 0030),
    // and the change lists' totals below (observableState) show they came out the same.
    const { pending_count_deltas: _sourceDeltas, ...copiedCounts } = expected.counts;
    expect(Object.fromEntries(copied.map((t) => [t.table, t.rows]))).toEqual(copiedCounts);
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
    const target: TestDatabase = {
      backend: 'postgresql',
      prisma,
      url,
      queryCount: () => 0,
      migrate: async () => [],
      close: () => prisma.$disconnect(),
    };
    const api2 = await startTestServer(target, { secrets: createSecretBox(key) });
    try {
      const { api_tokens: tokens, pending_count_deltas: _deltas, ...counts } = await tableCounts(prisma);
      const { api_tokens: sourceTokens, ...expectedCounts } = copiedCounts;
      expect(counts).toEqual(expectedCounts);
      expect(tokens).toBe(sourceTokens! + 1); // the second test server's own token
      // The same reader (token) sees the same pending changes, open failure and queued delivery.
      expect(await observableState(api2, prisma, api.token)).toEqual(expected.state);
      // Webhook secrets stay readable with the same key.
      const [webhook] = await prisma.webhookConfig.findMany();
      expect(createSecretBox(key).decrypt(webhook!.secretEncrypted)).toContain('a-secret-of-16-chars');

      const ids = expected.state.products.payload.map((p: { id: number }) => p.id);
      expect(ids.length).toBeGreaterThan(0);
      const ack = await api2.request('POST', '/api/v1/updated-products/batch-delete', { body: { ids }, token: api.token });
      expect(ack.status).toBe(200);
      expect((await api2.request('GET', '/api/v1/updated-products', { token: api.token })).body.meta.total).toBe(0);

      // Sequences go on after the copied ids: a new product gets a fresh id, not a clash.
      const maxId = Math.max(...(await prisma.product.findMany({ select: { id: true } })).map((p) => p.id));
      const created = await api2.request('POST', '/api/v1/products', { body: { external_id: 'NEW-1', name: 'new' }, token: api.token });
      expect(created.status).toBe(200);
      expect((await prisma.product.findFirstOrThrow({ where: { externalId: 'NEW-1' } })).id).toBeGreaterThan(maxId);
    } finally {
      await api2.close();
      await prisma.$disconnect();
    }
  });

  it('refuses a target that holds rows, and leaves it as it was', async () => {
    const url = await freshDatabase();
    const client = new Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE TABLE customers (id int)');
    await client.query('INSERT INTO customers VALUES (1)');
    await client.end();

    await expect(exportToPostgres(source.db, url)).rejects.toThrow(/not empty \(rows in customers\)/);

    const check = new Client({ connectionString: url });
    await check.connect();
    const { rows } = await check.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
    await check.end();
    expect(rows).toEqual([{ tablename: 'customers' }]);
  });

  it('runs as `sync-gateway export --to` on a stopped store and refuses a running one', async () => {
    const url = await freshDatabase();
    const env = { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn' };
    const live = await runCli({ ...env, DATA_DIR: source.dataDir }, ['export', '--to', url]);
    expect(live.code).toBe(1);
    expect(live.stderr).toMatch(/in use by another sync-gateway process/);

    const stopped = await openEmbeddedTestStore();
    await stopped.db.close();
    const result = await runCli({ ...env, DATA_DIR: stopped.dataDir }, ['export', '--to', url]);
    await stopped.remove();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/copied \d+ rows into/);
    expect(result.stdout).toMatch(/ENCRYPTION_KEY set to the key in .*encryption\.key/);
  });
});
