import { Registry } from 'prom-client';
import { addEmbeddedStoreGauges } from '../../src/ops/store-metrics';
import { openEmbeddedTestStore } from '../support/embedded-store';
import { startTestServer, type TestServer } from '../support/http';

/*
 * ADR 0035: past its memory ceiling the store's thread replaces its PGlite instance between calls.
 * A ceiling of 1 MB is always passed, so the store recycles whenever it is idle for a moment: under
 * concurrent pushes, polls and acknowledgements nothing may be lost, doubled or answered with an error.
 */

describe('recycling the embedded store past its memory ceiling', () => {
  let store: Awaited<ReturnType<typeof openEmbeddedTestStore>>;
  let api: TestServer;

  beforeAll(async () => {
    store = await openEmbeddedTestStore({ memoryCeilingMb: 1 });
    api = await startTestServer(store.asTestDatabase());
    // Every idle moment recycles, and each recycle now collects garbage: generous on a loaded machine.
  }, 300_000);
  afterAll(async () => {
    await api.close();
    await store.db.close();
    await store.remove();
  });

  const recycles = () => store.db.embedded!.pglite.recycles().count;

  it('loses, doubles and fails nothing while pushes, polls and acknowledgements run across recycles', async () => {
    const before = recycles();
    const rounds = 8;
    const perRound = 40;
    const errors: string[] = [];
    const check = (what: string, res: { status: number; text: string }) => {
      if (res.status >= 300) errors.push(`${what}: ${res.status} ${res.text}`);
    };
    let pushing = true;
    const pusher = (async () => {
      for (let round = 0; round < rounds; round++) {
        const products = Array.from({ length: perRound }, (_, i) => ({
          external_id: `R${round}-${i}`,
          name: `Product ${round}/${i}`,
          price: 1 + i,
        }));
        check('push', await api.request('POST', '/api/v1/products', { body: { products } }));
      }
      pushing = false;
    })();
    const acknowledged = new Set<string>();
    const poller = async () => {
      for (;;) {
        const stillPushing = pushing;
        const listed = await api.request<{ payload: Array<{ id: number; externalId: string }> }>(
          'GET',
          '/api/v1/updated-products?limit=50',
        );
        check('poll', listed);
        const page = listed.body.payload ?? [];
        if (page.length > 0) {
          const ack = await api.request('POST', '/api/v1/updated-products/batch-delete', { body: { ids: page.map((p) => p.id) } });
          check('ack', ack);
          for (const p of page) acknowledged.add(p.externalId);
        } else if (!stillPushing) return;
      }
    };
    await Promise.all([pusher, poller(), poller()]);

    expect(errors).toEqual([]);
    expect(recycles()).toBeGreaterThan(before);
    // Every accepted change listed and acknowledged, none left pending.
    expect(acknowledged.size).toBe(rounds * perRound);
    const prisma = store.db.prisma;
    expect(await prisma.product.count({ where: { pending: true } })).toBe(0);
    expect(await prisma.product.count({ where: { ackedRevision: 1 } })).toBe(rounds * perRound);
    // The O(1) pending counts agree with the rows (ADR 0030).
    const [sums] = await prisma.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT COALESCE(sum(delta), 0)::int AS n FROM pending_count_deltas WHERE table_name = 'products'`,
    );
    expect(sums!.n).toBe(0);
  }, 300_000);

  it('never recycles under an open transaction, and keeps what it committed', async () => {
    const pglite = store.db.embedded!.pglite;
    await pglite.exec('CREATE TABLE IF NOT EXISTS recycle_probe (n int)');
    const outside: Array<Promise<unknown>> = [];
    let before = -1;
    let during = -1;
    await pglite.transaction(async (tx) => {
      // Read once the transaction is open: a recycle after the statement above has been reported by then.
      before = recycles();
      for (let n = 0; n < 20; n++) {
        await tx.query('INSERT INTO recycle_probe VALUES ($1)', [n]);
        // Calls outside the transaction arrive meanwhile: they wait behind it, and so does any recycle.
        outside.push(pglite.query('SELECT count(*) FROM recycle_probe'));
      }
      during = recycles();
    });
    expect(during).toBe(before);
    await Promise.all(outside);
    // The store was idle after those: it recycled before this query ran.
    const { rows } = await pglite.query<{ n: number }>('SELECT count(*)::int AS n FROM recycle_probe');
    expect(rows[0]!.n).toBe(20);
    expect(recycles()).toBeGreaterThan(before);
  });

  it('counts the recycles and their last pause in /metrics', async () => {
    const registry = new Registry();
    addEmbeddedStoreGauges(registry, store.db.embedded!);
    await store.db.embedded!.pglite.query('SELECT 1');
    const text = await registry.metrics();
    const count = Number(/^sync_gateway_embedded_recycles (\S+)$/m.exec(text)?.[1]);
    const pause = Number(/^sync_gateway_embedded_recycle_last_pause_seconds (\S+)$/m.exec(text)?.[1]);
    // A recycle may follow the query above while the gauges are read.
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThanOrEqual(recycles());
    expect(pause).toBeGreaterThan(0);
  });
});
