import { Registry } from 'prom-client';
import { tableStats } from '../../src/db/housekeeping';
import { addEmbeddedStoreGauges } from '../../src/ops/store-metrics';
import { directoryBytes } from '../../src/db/store-size';
import { openEmbeddedTestStore, products } from '../support/embedded-store';
import { startTestServer, type TestServer } from '../support/http';

/*
 * Issue 20: re-pushing the same 2,000 products 40 times grew the data directory from 39 to 145 MB
 * (no autovacuum, no checkpointer in PGlite). With housekeeping at the pace of its schedule (a pass
 * every few rounds, as every 5 s at the rate) the growth stays within 2×.
 */
describe('housekeeping of the embedded store', () => {
  let store: Awaited<ReturnType<typeof openEmbeddedTestStore>>;
  let api: TestServer;

  beforeAll(async () => {
    store = await openEmbeddedTestStore();
    api = await startTestServer(store.asTestDatabase());
  });
  afterAll(async () => {
    await api.close();
    await store.db.close();
    await store.remove();
  });

  const push = async (round: number) => {
    const res = await api.request('POST', '/api/v1/products', { body: { products: products(2_000, round) } });
    expect(res.status).toBe(200);
  };
  const deadProducts = async () => (await tableStats(store.db.embedded!.pglite)).find((t) => t.table === 'products')!.dead;

  it('vacuums the bloated tables: dead tuples before and after', async () => {
    await push(0);
    for (let round = 1; round <= 6; round++) await push(round);
    const before = await deadProducts();
    expect(before).toBeGreaterThan(5_000);

    const runs = await store.db.embedded!.housekeeping.vacuumDue();

    expect(runs.map((r) => r.table)).toContain('products');
    expect(await deadProducts()).toBeLessThan(before / 10);
    // A second pass finds nothing due: it never vacuums for nothing.
    expect((await store.db.embedded!.housekeeping.vacuumDue()).map((r) => r.table)).not.toContain('products');
  });

  it('keeps the 40-round re-push of 2,000 products within 2× of the data directory', async () => {
    const { housekeeping, pgDir } = store.db.embedded!;
    await housekeeping.checkpoint();
    const start = await directoryBytes(pgDir);
    const sizes: number[] = [];
    for (let round = 1; round <= 40; round++) {
      await push(round);
      if (round % 4 === 0) await housekeeping.vacuumDue();
      if (round % 10 === 0) await housekeeping.checkpoint();
      sizes.push(await directoryBytes(pgDir));
    }
    const end = await directoryBytes(pgDir);
    // Measured: 40 → 62 MB with these passes; 40 → 120 MB without them.
    expect(end / start).toBeLessThanOrEqual(2);
    expect(Math.max(...sizes) / start).toBeLessThanOrEqual(2);
    expect(housekeeping.longestPauseMs()).toEqual({
      vacuum: expect.any(Number),
      analyze: expect.any(Number),
      checkpoint: expect.any(Number),
    });
    expect(housekeeping.longestPauseMs().vacuum).toBeGreaterThan(0);
  });

  it('reports data-directory size, WAL size and dead-tuple ratios as gauges', async () => {
    const registry = new Registry();
    addEmbeddedStoreGauges(registry, store.db.embedded!);
    await push(41);
    await push(42);
    const text = () => registry.metrics();
    const value = async (line: RegExp) =>
      Number(
        (await text())
          .split('\n')
          .find((l) => line.test(l))
          ?.split(' ')
          .pop(),
      );
    const deadRatio = /^sync_gateway_embedded_dead_tuple_ratio\{table="products"\} /;
    // Postgres publishes its table counters at most once a second: wait for them, generously.
    for (let tries = 0; tries < 100 && !((await value(deadRatio)) > 0); tries++) await new Promise((r) => setTimeout(r, 200));
    expect(await value(deadRatio)).toBeGreaterThan(0);
    expect(await value(deadRatio)).toBeLessThan(1);
    expect(await value(/^sync_gateway_embedded_data_dir_bytes /)).toBeGreaterThan(10_000_000);
    expect(await value(/^sync_gateway_embedded_wal_bytes /)).toBeGreaterThan(0);
    await store.db.embedded!.housekeeping.vacuumDue();
    expect(await value(/^sync_gateway_embedded_housekeeping_longest_pause_seconds\{kind="vacuum"\} /)).toBeGreaterThan(0);
  });
});
