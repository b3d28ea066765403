/**
 * embedded-durability: what syncing the WAL before each 2xx costs on the embedded store. The same
 * service (no DATABASE_URL) with EMBEDDED_FSYNC=true (the default) and false, side by side in one
 * run: stock-upsert (10,000 entries per request, as the stock-upsert scenario) and single-product
 * POSTs one after the other (each request is one commit, so one WAL sync when on).
 */
import { log, median, percentile, ROUNDS } from '../lib/measure';
import { api, startService, type Service } from '../lib/service';
import { serviceStockUpsertRate } from './stock-upsert';

const SINGLE_POSTS = Number(process.env.BENCH_SINGLE_POSTS ?? 200);

export type DurabilityRow = { scenario: string; metric: string; fsyncOn: number; fsyncOff: number };

async function singleProductPosts(service: Service): Promise<{ perSecond: number; p50Ms: number; p99Ms: number }> {
  const rates: number[] = [];
  const p50s: number[] = [];
  const p99s: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const latencies: number[] = [];
    const started = performance.now();
    for (let i = 0; i < SINGLE_POSTS; i++) {
      const t = performance.now();
      await api(service, 'POST', '/api/v1/products', {
        products: [{ external_id: `ONE-${i % 50}`, name: `round ${round} post ${i}`, price: i }],
      });
      latencies.push(performance.now() - t);
    }
    rates.push(SINGLE_POSTS / ((performance.now() - started) / 1000));
    latencies.sort((a, b) => a - b);
    p50s.push(percentile(latencies, 50));
    p99s.push(percentile(latencies, 99));
  }
  return { perSecond: median(rates), p50Ms: median(p50s), p99Ms: median(p99s) };
}

async function measure(fsync: boolean) {
  const env = { EMBEDDED_FSYNC: String(fsync) };
  const upsert = await startService({ backend: 'pglite', env });
  let stockRowsPerSecond: number;
  try {
    stockRowsPerSecond = await serviceStockUpsertRate(upsert);
  } finally {
    await upsert.stop();
  }
  const single = await startService({ backend: 'pglite', env });
  try {
    return { stockRowsPerSecond, ...(await singleProductPosts(single)) };
  } finally {
    await single.stop();
  }
}

export async function runEmbeddedDurability(): Promise<DurabilityRow[]> {
  log('embedded-durability: EMBEDDED_FSYNC=true');
  const on = await measure(true);
  log('embedded-durability: EMBEDDED_FSYNC=false');
  const off = await measure(false);
  return [
    { scenario: 'stock-upsert (10,000 per request)', metric: 'rows/s', fsyncOn: on.stockRowsPerSecond, fsyncOff: off.stockRowsPerSecond },
    { scenario: '1-product POST, sequential', metric: 'req/s', fsyncOn: on.perSecond, fsyncOff: off.perSecond },
    { scenario: '1-product POST, sequential', metric: 'p50 ms', fsyncOn: on.p50Ms, fsyncOff: off.p50Ms },
    { scenario: '1-product POST, sequential', metric: 'p99 ms', fsyncOn: on.p99Ms, fsyncOff: off.p99Ms },
  ];
}
