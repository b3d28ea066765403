/**
 * embedded-latency (issues 18 and 29): does a poll on the embedded store wait for a push? On the
 * embedded store, 10,000 pending products: the poll (`updated-products?limit=50`) at 4
 * connections on a quiet store, then `/health` (1 connection) and the same poll while the ERP
 * pushes 10,000 stocks per request back to back (half of them changed each time). The build under
 * test (a PostgreSQL cluster of its own, ADR 0042) and the previous build (PGlite in the process,
 * BENCH_PREVIOUS_ROOT) side by side: each round starts each build on a fresh DATA_DIR, the order
 * alternating. Memory: PSS of Node plus the cluster's processes, and Node's RSS alone.
 */
import { loadavg } from 'node:os';
import { httpLoad, infoResult, limitResult, log, median, ROUNDS, type HttpLoad, type Result } from '../lib/measure';
import { readFileSync } from 'node:fs';
import { processCpuSeconds, threadCpuSeconds } from '../lib/cpu';
import { peakMemory, postmasterPid, processTree } from '../lib/memory';
import { api, PREVIOUS_ROOT, startService, type Service } from '../lib/service';
import { seedPendingProducts, POLL_PRODUCTS } from './poll';
import { stockBatch } from './stock-upsert';

const CONNECTIONS = 4;
const DURATION_S = Number(process.env.BENCH_LATENCY_SECONDS ?? 20);

const poll = (service: Service) =>
  httpLoad({
    url: `${service.url}/api/v1/updated-products?limit=50`,
    connections: CONNECTIONS,
    durationS: DURATION_S,
    headers: { authorization: `Bearer ${service.token}` },
  });

const health = (service: Service) => httpLoad({ url: `${service.url}/health`, connections: 1, durationS: DURATION_S });

/** 10,000-stock pushes one after the other until `stop()`; returns how many completed. */
function pushLoop(service: Service): { stop(): Promise<number> } {
  let running = true;
  let pushes = 0;
  const done = (async () => {
    await api(service, 'POST', '/api/v1/stocks', { stocks: stockBatch('SUP-latency', 0) });
    for (let k = 1; running; k++) {
      await api(service, 'POST', '/api/v1/stocks', { stocks: stockBatch('SUP-latency', k) });
      pushes++;
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return pushes;
    },
  };
}

/** CPU seconds so far: Node's main thread, its other threads, the cluster's processes, this bench process, and the machine (busy, every core). */
function cpuNow(service: Service) {
  const threads = threadCpuSeconds(service.pid);
  const main = threads.get('main') ?? 0;
  const all = [...threads.values()].reduce((a, b) => a + b, 0);
  const postmaster = postmasterPid(service.dataDir);
  const cluster = new Map<number, number>();
  for (const pid of postmaster === undefined ? [] : processTree([postmaster])) {
    try {
      cluster.set(pid, processCpuSeconds(pid));
    } catch {
      // exited meanwhile
    }
  }
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  const machineBusy = (cpu.reduce((a, b) => a + b, 0) - cpu[3]! - cpu[4]!) / 100;
  return { main, others: all - main, cluster, bench: processCpuSeconds(process.pid), machineBusy, at: performance.now() };
}

/** Percent of one core each used between two readings (the cluster: processes alive at the second). */
function cpuBetween(a: ReturnType<typeof cpuNow>, b: ReturnType<typeof cpuNow>) {
  const seconds = (b.at - a.at) / 1000;
  const pct = (x: number) => Math.round((100 * x) / seconds);
  let cluster = 0;
  for (const [pid, s] of b.cluster) cluster += s - (a.cluster.get(pid) ?? 0);
  return {
    nodeMainPct: pct(b.main - a.main),
    nodeOtherThreadsPct: pct(b.others - a.others),
    clusterPct: pct(cluster),
    benchPct: pct(b.bench - a.bench),
    machineBusyPct: pct(b.machineBusy - a.machineBusy),
  };
}

export type LatencyRound = {
  build: 'embedded' | 'previous';
  round: number;
  quiet: HttpLoad;
  health: HttpLoad;
  poll: HttpLoad;
  pushesPerMinute: number;
  idlePssMb: number;
  idleNodeRssMb: number;
  peakPssMb: number;
  peakNodeRssMb: number;
  /** During the loaded phase, % of one core (the machine has 2: 200 % is all of it). */
  cpu: ReturnType<typeof cpuBetween>;
  loadBefore: number;
};

async function measure(build: LatencyRound['build'], round: number): Promise<LatencyRound> {
  const loadBefore = Number(loadavg()[0]!.toFixed(2));
  const service = await startService({ backend: 'embedded', ...(build === 'previous' ? { root: PREVIOUS_ROOT! } : {}) });
  try {
    await seedPendingProducts(service, POLL_PRODUCTS);
    const quiet = await poll(service);
    const idle = service.memory();
    const pushes = pushLoop(service);
    const started = performance.now();
    const cpuBefore = cpuNow(service);
    const { result, peakPssMb, peakRootRssMb } = await peakMemory(service.memory, async () => {
      const [healthLoad, pollLoad] = await Promise.all([health(service), poll(service)]);
      const cpuAfter = cpuNow(service);
      return { healthLoad, pollLoad, pushes: await pushes.stop(), cpu: cpuBetween(cpuBefore, cpuAfter) };
    });
    const seconds = (performance.now() - started) / 1000;
    const r: LatencyRound = {
      build,
      round,
      quiet,
      health: result.healthLoad,
      poll: result.pollLoad,
      pushesPerMinute: (result.pushes * 60) / seconds,
      idlePssMb: idle.pssMb,
      idleNodeRssMb: idle.rootRssMb,
      peakPssMb,
      peakNodeRssMb: peakRootRssMb,
      cpu: result.cpu,
      loadBefore,
    };
    log(
      `embedded-latency ${build} round ${round}: quiet poll ${quiet.reqPerSec.toFixed(0)} req/s (p99 ${quiet.p99Ms} ms); during ` +
        `${result.pushes} pushes: /health p99 ${r.health.p99Ms} ms, poll p99 ${r.poll.p99Ms} ms (${r.poll.reqPerSec.toFixed(0)} req/s); ` +
        `PSS idle ${idle.pssMb.toFixed(0)} MB, peak ${peakPssMb.toFixed(0)} MB (Node RSS peak ${peakRootRssMb.toFixed(0)}); ` +
        `CPU % of a core: ${JSON.stringify(result.cpu)}; load ${loadBefore}`,
    );
    return r;
  } finally {
    await service.stop();
  }
}

export async function runEmbeddedLatency(): Promise<{ results: Result[]; rounds: LatencyRound[] }> {
  const builds: Array<LatencyRound['build']> = PREVIOUS_ROOT ? ['embedded', 'previous'] : ['embedded'];
  if (!PREVIOUS_ROOT) log('embedded-latency: no previous build (BENCH_PREVIOUS_ROOT): the new build alone');
  const rounds: LatencyRound[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? builds : [...builds].reverse();
    for (const build of order) rounds.push(await measure(build, round));
  }
  const med = (build: LatencyRound['build'], pick: (r: LatencyRound) => number) => {
    const xs = rounds.filter((r) => r.build === build).map(pick);
    return xs.length ? median(xs) : null;
  };
  const info = (metric: string, pick: (r: LatencyRound) => number): Result => {
    const baseline = med('previous', pick);
    return {
      ...infoResult('embedded-latency', metric, med('embedded', pick)!),
      baseline: baseline === null ? null : Number(baseline.toFixed(1)),
    };
  };
  const both = (metric: string, pick: (r: LatencyRound) => number, limit: number) =>
    limitResult('embedded-latency', metric, med('embedded', pick)!, limit, med('previous', pick));
  return {
    rounds,
    results: [
      both('/health p99 ms during 10,000-stock pushes (baseline: previous build)', (r) => r.health.p99Ms, 10),
      both(`poll p99 ms at ${CONNECTIONS} connections during 10,000-stock pushes (baseline: previous build)`, (r) => r.poll.p99Ms, 50),
      info(`poll req/s at ${CONNECTIONS} connections during the pushes`, (r) => r.poll.reqPerSec),
      info(`poll req/s at ${CONNECTIONS} connections, quiet`, (r) => r.quiet.reqPerSec),
      info('pushes of 10,000 stocks per minute during the polls', (r) => r.pushesPerMinute),
      info('PSS MB idle, Node + cluster (10,000 products seeded)', (r) => r.idlePssMb),
      info('peak PSS MB during the pushes, Node + cluster', (r) => r.peakPssMb),
    ],
  };
}
