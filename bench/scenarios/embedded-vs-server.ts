/**
 * embedded-vs-server (issue 29): the same workloads on the embedded store (the cluster the service
 * runs itself in DATA_DIR, ADR 0042) and on the machine's PostgreSQL (BENCH_DATABASE_URL, a fresh
 * database each), the same build, side by side: for each workload both services run at once and
 * the rounds alternate which goes first.
 * - poll: `GET /api/v1/updated-products?limit=50`, 64 connections, BENCH_POLL_SECONDS (20) per run,
 *   10,000 pending products (the poll scenario's load);
 * - stock-upsert: 20 × `POST /api/v1/stocks` of 10,000 entries, half changed (the stock-upsert scenario's service side);
 * - product-sync: 10 × `POST /api/v1/products` of 500 products with two pricelist entries, one in
 *   ten renamed (the product-sync scenario's service side), 4 catalogue versions per round.
 * For the poll, also the CPU per poll of the service process and of the database backends serving it.
 * Target: embedded ≥ 0.9 × the server for each.
 */
import { loadavg } from 'node:os';
import { runningClusterUrl } from '../../src/db/embedded-postgres';
import { databaseCpuSeconds, processCpuSeconds } from '../lib/cpu';
import { log, median, ratioResult, ROUNDS, type Result } from '../lib/measure';
import { freshDatabase, startService, type Service } from '../lib/service';
import { pollRest, seedPendingProducts, POLL_CONNECTIONS, POLL_PRODUCTS } from './poll';
import { seedServiceCatalogue, serviceProductSyncRound } from './product-sync';
import { prepareServiceStockUpsert, serviceStockUpsertRound, STOCK_REQUESTS_PER_ROUND } from './stock-upsert';

export type Workload = 'poll' | 'stock-upsert' | 'product-sync';
/** Where a poll's CPU goes: the service process (every thread) and the database backends serving its database, ms per poll. */
type PollCost = { nodeCpuMsPerPoll: number; dbCpuMsPerPoll: number | undefined };

export type VersusRound = {
  workload: Workload;
  round: number;
  embedded: number;
  server: number;
  embeddedP99Ms?: number;
  serverP99Ms?: number;
  embeddedCost?: PollCost;
  serverCost?: PollCost;
  load: number;
};

type Reading = { value: number; p99Ms?: number; cost?: PollCost };

/** product-sync's catalogue versions per round: one version (5,000 products) takes about a second, too short alone on a shared machine. */
const PRODUCT_SYNC_VERSIONS_PER_ROUND = Number(process.env.BENCH_VERSUS_PRODUCT_VERSIONS ?? 4);

async function databaseUrl(service: Service): Promise<string | undefined> {
  return service.env.DATABASE_URL || (await runningClusterUrl(service.dataDir));
}

const UNITS: Record<Workload, string> = {
  poll: `req/s, ${POLL_CONNECTIONS} connections`,
  'stock-upsert': 'rows/s',
  'product-sync': 'products/s',
};

async function pair<T>(work: (embedded: Service, server: Service) => Promise<T>): Promise<T> {
  const db = await freshDatabase();
  const server = await startService({ backend: 'postgresql', databaseUrl: db.url });
  const embedded = await startService({ backend: 'embedded' }).catch(async (error: unknown) => {
    await server.stop();
    await db.drop();
    throw error;
  });
  try {
    return await work(embedded, server);
  } finally {
    await embedded.stop();
    await server.stop();
    await db.drop();
  }
}

async function rounds(
  workload: Workload,
  prepare: (service: Service) => Promise<void>,
  measure: (service: Service, round: number) => Promise<Reading>,
): Promise<VersusRound[]> {
  return pair(async (embedded, server) => {
    await prepare(embedded);
    await prepare(server);
    const out: VersusRound[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const load = Number(loadavg()[0]!.toFixed(2));
      const order = round % 2 === 1 ? (['embedded', 'server'] as const) : (['server', 'embedded'] as const);
      const got: Record<'embedded' | 'server', Reading> = { embedded: { value: NaN }, server: { value: NaN } };
      for (const which of order) got[which] = await measure(which === 'embedded' ? embedded : server, round);
      const r: VersusRound = {
        workload,
        round,
        embedded: got.embedded.value,
        server: got.server.value,
        ...(got.embedded.p99Ms === undefined ? {} : { embeddedP99Ms: got.embedded.p99Ms }),
        ...(got.server.p99Ms === undefined ? {} : { serverP99Ms: got.server.p99Ms }),
        ...(got.embedded.cost === undefined ? {} : { embeddedCost: got.embedded.cost }),
        ...(got.server.cost === undefined ? {} : { serverCost: got.server.cost }),
        load,
      };
      log(
        `embedded-vs-server ${workload} round ${round}: embedded ${r.embedded.toFixed(0)}, server ${r.server.toFixed(0)} ${UNITS[workload]} ` +
          `(${(r.embedded / r.server).toFixed(2)} ×${r.embeddedP99Ms === undefined ? '' : `; p99 ${r.embeddedP99Ms} / ${r.serverP99Ms} ms`}` +
          `${r.embeddedCost ? `; CPU ms per poll embedded ${JSON.stringify(r.embeddedCost)}, server ${JSON.stringify(r.serverCost)}` : ''}; load ${load})`,
      );
      out.push(r);
    }
    return out;
  });
}

export async function runEmbeddedVsServer(
  wanted: (workload: Workload) => boolean = () => true,
): Promise<{ results: Result[]; rounds: VersusRound[] }> {
  const all: VersusRound[] = [];
  if (wanted('poll')) {
    log('embedded-vs-server: poll');
    all.push(
      ...(await rounds(
        'poll',
        (service) => seedPendingProducts(service, POLL_PRODUCTS),
        async (service) => {
          const url = await databaseUrl(service);
          const nodeBefore = processCpuSeconds(service.pid);
          const dbBefore = url ? await databaseCpuSeconds(url) : undefined;
          const load = await pollRest(service);
          const nodeAfter = processCpuSeconds(service.pid);
          const dbAfter = url ? await databaseCpuSeconds(url) : undefined;
          const per = (seconds: number) => Number(((seconds * 1000) / Math.max(1, load.requests)).toFixed(2));
          return {
            value: load.reqPerSec,
            p99Ms: load.p99Ms,
            cost: {
              nodeCpuMsPerPoll: per(nodeAfter - nodeBefore),
              dbCpuMsPerPoll: dbBefore === undefined || dbAfter === undefined ? undefined : per(dbAfter - dbBefore),
            },
          };
        },
      )),
    );
  }
  if (wanted('stock-upsert')) {
    log('embedded-vs-server: stock-upsert');
    all.push(
      ...(await rounds('stock-upsert', prepareServiceStockUpsert, async (service, round) => ({
        value: await serviceStockUpsertRound(service, 1 + (round - 1) * STOCK_REQUESTS_PER_ROUND),
      }))),
    );
  }
  if (wanted('product-sync')) {
    log('embedded-vs-server: product-sync');
    all.push(
      ...(await rounds(
        'product-sync',
        (service) => seedServiceCatalogue(service, 'SVC'),
        async (service, round) => {
          // Versions (round - 1) × N + 1 … round × N of the catalogue, one after the other; their mean rate.
          const rates: number[] = [];
          for (let k = 1; k <= PRODUCT_SYNC_VERSIONS_PER_ROUND; k++)
            rates.push(await serviceProductSyncRound(service, 'SVC', (round - 1) * PRODUCT_SYNC_VERSIONS_PER_ROUND + k));
          return { value: rates.length / rates.reduce((sum, r) => sum + 1 / r, 0) };
        },
      )),
    );
  }
  const results: Result[] = [];
  for (const workload of ['poll', 'stock-upsert', 'product-sync'] as const) {
    const of = all.filter((r) => r.workload === workload);
    if (of.length === 0) continue;
    // Paired rounds: the median of each round's ratio (drift on the shared machine hits both sides of a round alike).
    const ratio = median(of.map((r) => r.embedded / r.server));
    results.push({
      ...ratioResult(
        'embedded-vs-server',
        `${workload} ${UNITS[workload]} on the embedded store (ratio: median of the rounds' ratios)`,
        median(of.map((r) => r.embedded)),
        median(of.map((r) => r.server)),
        0.9,
        "the same on the machine's PostgreSQL",
      ),
      ratio: Number(ratio.toFixed(3)),
      pass: ratio >= 0.9,
    });
  }
  return { results, rounds: all };
}
