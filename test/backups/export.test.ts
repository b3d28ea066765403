import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import { acknowledgeMany } from '../../src/changes/tracked.service';
import { channelIdOf, createChannel } from '../../src/channels/channel.service';
import { exportToPostgres } from '../../src/backups/export-to-postgres';
import { openStore, type Store } from '../../src/db/store';
import { pendingCounts } from '../../src/backups/table-copy';
import { syncPartners } from '../../src/partners/partner.service';
import { listUpdatedProducts, syncProducts } from '../../src/products/product.service';
import { setWebhookNetworks } from '../../src/deliveries/network-policy';
import { createSecretBox } from '../../src/deliveries/secret-box';
import { createIdleWebhook, createPostgresDatabase } from '../support/database';
import { embeddedEnv, runCli } from '../support/process';

/** Needs a PostgreSQL server to export to, as the other PostgreSQL tests (TEST_DATABASE_URL). */
const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const READER = { key: 'token:export-test-reader', channelId: null };

async function counts(store: Pick<Store, 'sql'>): Promise<Record<string, number>> {
  const { rows } = await store.sql.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('_prisma_migrations', 'pending_count_deltas') ORDER BY 1`,
  );
  const result: Record<string, number> = {};
  for (const { name } of rows) result[name] = (await store.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}"`)).rows[0]!.n;
  return result;
}

onPostgres('export to PostgreSQL, from a store in use', () => {
  const box = createSecretBox(Buffer.alloc(32, 9));
  const databases: Array<{ drop(): Promise<void> }> = [];
  let work: string;
  let source: Store;

  const freshDatabase = async () => {
    // Empty: export migrates its target itself.
    const database = await createPostgresDatabase('postgresql', { migrated: false });
    databases.push(database);
    return database.url;
  };

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'sgw-export-'));
    // As root the cluster runs as another OS user, who must pass through this directory.
    await chmod(work, 0o711);
    source = await openStore({ dataDir: path.join(work, 'source'), logger, embeddedFsync: false });
    await source.migrate();
    await syncProducts(
      source,
      Array.from({ length: 120 }, (_, i) => ({ external_id: `P${i}`, name: `Product ${i}`, price: 10 + i })),
      'erp_sync',
    );
    // The first 50 listed and acknowledged by this reader: they stay acknowledged there, the other 70 pending.
    const listed = await listUpdatedProducts(source, READER, { limit: 50 });
    await acknowledgeMany(source.prisma, 'products', READER, { ids: listed.payload.map((p) => p.id) });
    // A second shop's channel (ADR 0045): all 120 pending there as new, 30 of them acknowledged.
    await createChannel(source.prisma, 'shop-b', 'all');
    const onB = { key: 'token:export-shop-b', channelId: await channelIdOf(source.prisma, 'shop-b') };
    const listedOnB = await listUpdatedProducts(source, onB, { limit: 30 });
    await acknowledgeMany(source.prisma, 'products', onB, { ids: listedOnB.payload.map((p) => p.id) });
    await syncPartners(source, [{ external_id: 'ROOT', name: 'root', type: 'B' }], 'erp_sync');
    await syncPartners(source, [{ external_id: 'LEAF', name: 'leaf', type: 'C', parent_external_id: 'ROOT' }], 'erp_sync');
    setWebhookNetworks({ allowed: ['127.0.0.1/32'], blocked: [] });
    await createIdleWebhook(source.prisma, box);
  });
  afterAll(async () => {
    await source?.close();
    for (const database of databases) await database.drop();
    await rm(work, { recursive: true, force: true });
  });

  it('copies every table; the same reader sees the same change list there, acknowledges there, and ids go on', async () => {
    const url = await freshDatabase();
    const copied = await exportToPostgres(source, url);
    const expected = await counts(source);
    expect(Object.fromEntries(copied.map((t) => [t.table, t.rows]))).toEqual(expected);

    const target = await openStore({ databaseUrl: url, dataDir: work, logger });
    try {
      expect(await counts(target)).toEqual(expected);
      // Pending counts are recounted by the target's triggers as the rows arrive (ADR 0030), and agree.
      expect(await pendingCounts(target.sql)).toEqual(await pendingCounts(source.sql));
      const [webhook] = await target.prisma.webhookConfig.findMany();
      expect(box.decrypt(webhook!.secretEncrypted)).toBe('a-secret-of-16-chars');
      const leaf = await target.prisma.partner.findUniqueOrThrow({ where: { externalId: 'LEAF' } });
      expect(leaf.parentId).toBe((await target.prisma.partner.findUniqueOrThrow({ where: { externalId: 'ROOT' } })).id);

      const there = await listUpdatedProducts(target, READER, { limit: 500 });
      const here = await listUpdatedProducts(source, READER, { limit: 500 });
      expect(there.payload.map((p) => [p.id, p.revision])).toEqual(here.payload.map((p) => [p.id, p.revision]));
      expect(there.meta.total).toBe(70);
      await acknowledgeMany(target.prisma, 'products', READER, { ids: there.payload.map((p) => p.id) });
      expect((await listUpdatedProducts(target, READER, { limit: 500 })).meta.total).toBe(0);

      // The channel and its state came along: the same feed on shop B's channel, its counts exact.
      const onB = async (store: Store) => ({ key: 'token:export-shop-b', channelId: await channelIdOf(store.prisma, 'shop-b') });
      const thereOnB = await listUpdatedProducts(target, await onB(target), { limit: 500 });
      const hereOnB = await listUpdatedProducts(source, await onB(source), { limit: 500 });
      expect(thereOnB.payload.map((p) => [p.id, p.revision, p.isNew])).toEqual(hereOnB.payload.map((p) => [p.id, p.revision, p.isNew]));
      expect(thereOnB.meta.total).toBe(90);
      await syncProducts(target, [{ external_id: 'P0', price: 999 }], 'erp_sync');
      expect((await listUpdatedProducts(target, await onB(target), { limit: 500 })).meta.total).toBe(91);

      const maxId = (await target.prisma.product.aggregate({ _max: { id: true } }))._max.id!;
      await syncProducts(target, [{ external_id: 'NEW-1', name: 'new', price: 1 }], 'erp_sync');
      expect((await target.prisma.product.findUniqueOrThrow({ where: { externalId: 'NEW-1' } })).id).toBeGreaterThan(maxId);
    } finally {
      await target.close();
    }
  });

  it('refuses a target that holds rows, and leaves it as it was', async () => {
    const url = await freshDatabase();
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('CREATE TABLE customers (id int); INSERT INTO customers VALUES (1)');
      await expect(exportToPostgres(source, url)).rejects.toThrow(/not empty \(rows in customers\)/);
      const { rows } = await client.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
      expect(rows).toEqual([{ tablename: 'customers' }]);
    } finally {
      await client.end();
    }
  });

  it('runs as `sync-gateway export --to` while another process holds the store (through its cluster)', async () => {
    const url = await freshDatabase();
    const env = embeddedEnv(path.join(work, 'source'), { LOG_LEVEL: 'warn' });
    const result = await runCli(env, ['export', '--to', url]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/copied \d+ rows into/);
    expect(result.stdout).toMatch(/ENCRYPTION_KEY set to the key in .*encryption\.key/);
    const target = new Client({ connectionString: url });
    await target.connect();
    const { rows } = await target.query<{ n: number }>('SELECT count(*)::int AS n FROM products').finally(() => target.end());
    expect(rows[0]!.n).toBe((await counts(source)).products);
  });
});
