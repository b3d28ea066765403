import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { openStore, type Store } from '../../src/db/store';
import type { PrismaClient } from '../../src/generated/prisma/client';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { asTestDatabase, type TestDatabase } from './database';
import type { TestServer } from './http';

/** An embedded store (its own cluster) in a data directory of its own, opened and migrated as the server opens it. */
export async function openEmbeddedTestStore(
  options: { dataDir?: string } = {},
): Promise<{ db: Store; dataDir: string; asTestDatabase(): TestDatabase; remove(): Promise<void> }> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'sgw-store-')));
  const db = await openStore({ dataDir, logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), embeddedFsync: false });
  await db.migrate();
  return {
    db,
    dataDir,
    asTestDatabase: () => asTestDatabase(db),
    remove: () => rm(dataDir, { recursive: true, force: true }),
  };
}

export function products(count: number, round: number) {
  return Array.from({ length: count }, (_, i) => ({
    external_id: `P${i}`,
    name: `Product ${i}`,
    price: 10 + (i % 7),
    description: `round ${round % 2}`,
  }));
}

/** A small installation in use: acknowledged and pending changes, stock deltas, an open failure with a queued delivery. */
export async function seedInstallation(api: TestServer, prisma: PrismaClient): Promise<void> {
  const ok = (res: { status: number; text: string }) => {
    if (res.status >= 300) throw new Error(`seed request failed: ${res.status} ${res.text}`);
  };
  ok(await api.request('POST', '/api/v1/products', { body: { products: products(120, 0) } }));
  const listed = await api.request<{ payload: Array<{ id: number }> }>('GET', '/api/v1/updated-products?limit=50');
  // The first 50 are acknowledged: they must stay acknowledged; the other 70 pending.
  ok(await api.request('POST', '/api/v1/updated-products/batch-delete', { body: { ids: listed.body.payload.map((p) => p.id) } }));
  const stocks = Array.from({ length: 30 }, (_, i) => ({ supplier_external_id: 'S1', product_external_id: `P${i}`, quantity: i }));
  ok(await api.request('POST', '/api/v1/stocks', { body: { stocks } }));
  await createWebhook(prisma, api.secrets, {
    url: 'http://127.0.0.1:9/hook',
    entityType: 'product',
    direction: 'to_erp',
    secret: 'a-secret-of-16-chars',
  });
  ok(
    await api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'product', external_id: 'P99', source: 'webshop', error_message: 'no' },
    }),
  );
}

/** What a client sees, and what it does not see but must not lose: the answers compared across stores. */
export async function observableState(api: TestServer, prisma: PrismaClient, token: string) {
  const get = async (route: string) => (await api.request('GET', route, { token })).body;
  const queue = await prisma.outboundQueueItem.findMany({ orderBy: { id: 'asc' }, select: { id: true, status: true, payload: true } });
  return {
    products: await get('/api/v1/updated-products?limit=500'),
    stocks: await get('/api/v1/stocks/changed?limit=500'),
    failures: await get('/api/v1/failures?status=open'),
    queue,
  };
}

/** Exact row counts of every table. */
export async function tableCounts(prisma: PrismaClient): Promise<Record<string, number>> {
  const tables = await prisma.$queryRawUnsafe<Array<{ name: string }>>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const [row] = await prisma.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${name}"`);
    counts[name] = row!.n;
  }
  return counts;
}
