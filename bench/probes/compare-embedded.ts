/**
 * Two builds of the service side by side on the embedded store (not part of `npm run bench`):
 * what a setting of the cluster or of node costs in throughput, and what it saves in memory. Each
 * build runs at once on its own fresh DATA_DIR, with its own `npm start` flags; the rounds
 * alternate which build goes first, so that the machine's drift reaches both.
 *
 *   npx tsx bench/probes/compare-embedded.ts <root of build A> <root of build B>
 *
 * A root holds bin/, dist/, prisma/ and package.json (a copy of a built checkout). Per round:
 * stock-upsert (10 × 10,000 stocks, half changed; rows/s), then the poll (`GET
 * /api/v1/updated-products?limit=50`, 64 connections, BENCH_POLL_SECONDS; req/s), each build in
 * turn. Then both idle for IDLE_SECONDS and the memory of each whole service is read (PSS of Node's
 * tree and the cluster's, bench/lib/memory.ts). BENCH_ROUNDS (default 5).
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { log, median, ROUNDS } from '../lib/measure';
import { startService, type Service } from '../lib/service';
import { pollRest, POLL_PRODUCTS, seedPendingProducts } from '../scenarios/poll';
import { prepareServiceStockUpsert, serviceStockUpsertRound, STOCK_REQUESTS_PER_ROUND } from '../scenarios/stock-upsert';

const POLL_SECONDS = Number(process.env.BENCH_POLL_SECONDS ?? 15);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 60);

type Side = { name: string; service: Service; upsert: number[]; poll: number[] };

async function main(): Promise<void> {
  const roots = process.argv.slice(2);
  if (roots.length !== 2) throw new Error('usage: npx tsx bench/probes/compare-embedded.ts <root A> <root B>');
  const sides: Side[] = [];
  try {
    for (const root of roots) sides.push({ name: root, service: await startService({ backend: 'embedded', root }), upsert: [], poll: [] });
    await sleep(5_000);
    const afterStart = sides.map((s) => s.service.memory());
    for (const side of sides) {
      await seedPendingProducts(side.service, POLL_PRODUCTS);
      await prepareServiceStockUpsert(side.service);
    }
    for (let round = 1; round <= ROUNDS; round++) {
      const load = loadavg()[0]!.toFixed(2);
      const order = round % 2 === 1 ? sides : [...sides].reverse();
      for (const side of order) side.upsert.push(await serviceStockUpsertRound(side.service, 1 + (round - 1) * STOCK_REQUESTS_PER_ROUND));
      for (const side of order) side.poll.push((await pollRest(side.service, POLL_SECONDS)).reqPerSec);
      log(
        `round ${round} (load ${load}): ` +
          sides.map((s) => `${s.name}: ${s.upsert.at(-1)!.toFixed(0)} rows/s, poll ${s.poll.at(-1)!.toFixed(0)} req/s`).join('; '),
      );
    }
    await sleep(IDLE_SECONDS * 1000);
    const idle = sides.map((s) => s.service.memory());
    const [a, b] = sides as [Side, Side];
    const ratios = (pick: (s: Side) => number[]) => pick(b).map((v, i) => v / pick(a)[i]!);
    for (const [i, side] of sides.entries())
      log(
        `${side.name}: stock-upsert median ${median(side.upsert).toFixed(0)} rows/s (${side.upsert.map((v) => v.toFixed(0)).join(' ')}), ` +
          `poll median ${median(side.poll).toFixed(0)} req/s (${side.poll.map((v) => v.toFixed(0)).join(' ')}); ` +
          `PSS after start ${afterStart[i]!.pssMb.toFixed(1)} MB (Node ${afterStart[i]!.rootPssMb.toFixed(1)}), ` +
          `${IDLE_SECONDS} s after the load ${idle[i]!.pssMb.toFixed(1)} MB (Node ${idle[i]!.rootPssMb.toFixed(1)})`,
      );
    log(
      `B / A per round: stock-upsert ${ratios((s) => s.upsert)
        .map((r) => r.toFixed(2))
        .join(' ')} (median ${median(ratios((s) => s.upsert)).toFixed(2)}), poll ${ratios((s) => s.poll)
        .map((r) => r.toFixed(2))
        .join(' ')} (median ${median(ratios((s) => s.poll)).toFixed(2)}); load now ${loadavg()[0]!.toFixed(2)}`,
    );
  } finally {
    for (const side of sides) await side.service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
