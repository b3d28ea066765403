/**
 * embedded-durability: what waiting for the WAL flush before each 2xx costs on the embedded store.
 * EMBEDDED_FSYNC (default true) sets the cluster's `synchronous_commit` (ADR 0042; off: a commit
 * returns before its WAL reaches the disk, and a crash of the machine — not of the service — can
 * lose the last moments). Two services at once, on and off, the rounds alternating which goes
 * first: stock-upsert (10,000 entries per request, 20 requests per round) and single-product POSTs
 * one after the other (each request is one commit, so one WAL flush when on).
 */
import { infoResult, log, median, percentile, ROUNDS, type Result } from '../lib/measure';
import { api, startService, type Service } from '../lib/service';
import { prepareServiceStockUpsert, serviceStockUpsertRound, STOCK_REQUESTS_PER_ROUND } from './stock-upsert';

const SINGLE_POSTS = Number(process.env.BENCH_SINGLE_POSTS ?? 200);

type Reading = { stockRowsPerS: number; postsPerS: number; p50Ms: number; p99Ms: number };
export type DurabilityRound = { round: number; on: Reading; off: Reading };

async function singleProductPosts(service: Service, round: number): Promise<{ postsPerS: number; p50Ms: number; p99Ms: number }> {
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < SINGLE_POSTS; i++) {
    const t = performance.now();
    await api(service, 'POST', '/api/v1/products', {
      products: [{ external_id: `ONE-${i % 50}`, name: `round ${round} post ${i}`, price: i }],
    });
    latencies.push(performance.now() - t);
  }
  const postsPerS = SINGLE_POSTS / ((performance.now() - started) / 1000);
  latencies.sort((a, b) => a - b);
  return { postsPerS, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

async function reading(service: Service, round: number): Promise<Reading> {
  const stockRowsPerS = await serviceStockUpsertRound(service, 1 + (round - 1) * STOCK_REQUESTS_PER_ROUND);
  return { stockRowsPerS, ...(await singleProductPosts(service, round)) };
}

export async function runEmbeddedDurability(): Promise<{ results: Result[]; rounds: DurabilityRound[] }> {
  const on = await startService({ backend: 'embedded', env: { EMBEDDED_FSYNC: 'true' } });
  const off = await startService({ backend: 'embedded', env: { EMBEDDED_FSYNC: 'false' } });
  const rounds: DurabilityRound[] = [];
  try {
    await prepareServiceStockUpsert(on);
    await prepareServiceStockUpsert(off);
    for (let round = 1; round <= ROUNDS; round++) {
      const first = round % 2 === 1 ? 'on' : 'off';
      const a = await reading(first === 'on' ? on : off, round);
      const b = await reading(first === 'on' ? off : on, round);
      const r = { round, on: first === 'on' ? a : b, off: first === 'on' ? b : a };
      log(
        `embedded-durability round ${round}: stock-upsert ${r.on.stockRowsPerS.toFixed(0)} / ${r.off.stockRowsPerS.toFixed(0)} rows/s, ` +
          `1-product POST p50 ${r.on.p50Ms.toFixed(1)} / ${r.off.p50Ms.toFixed(1)} ms (synchronous_commit on / off)`,
      );
      rounds.push(r);
    }
  } finally {
    await on.stop();
    await off.stop();
  }
  const row = (metric: string, pick: (r: Reading) => number): Result => ({
    ...infoResult('embedded-durability', `${metric}, EMBEDDED_FSYNC=true (baseline: false)`, median(rounds.map((r) => pick(r.on)))),
    baseline: Number(median(rounds.map((r) => pick(r.off))).toFixed(1)),
  });
  return {
    rounds,
    results: [
      row('stock-upsert rows/s (10,000 per request)', (r) => r.stockRowsPerS),
      row('1-product POST, sequential, req/s', (r) => r.postsPerS),
      row('1-product POST p50 ms', (r) => r.p50Ms),
      row('1-product POST p99 ms', (r) => r.p99Ms),
    ],
  };
}
