/**
 * crash-restart (issues 13, 29 and 30): a store of 100,000 pending products, `kill -9`, and the
 * time from starting the built server again (`node bin/sync-gateway.js serve` from dist/, as `npm
 * start` runs it) to `GET /ready` answering 200, while a poll loop (4 clients, the poll's page,
 * retrying every 20 ms while the port refuses) and a push loop (200 product renames per request)
 * run against it. Nothing lost: every push answered 2xx before the kill is pushed again after the
 * restart and must come back unchanged (created 0, updated 0), and the pending total must still be
 * 100,000.
 *
 * Three variants, rounds interleaved (the order rotating each round), each on its own store:
 * - embedded, service killed: only Node dies; its postmaster lives on and the next start stops it
 *   (fast shutdown) before starting the cluster afresh (ADR 0042);
 * - embedded, service and cluster killed: Node and every process of the cluster at once (a
 *   container killed, an OOM kill of the cgroup): the next start runs PostgreSQL's crash recovery;
 * - previous build (BENCH_PREVIOUS_ROOT): PGlite, where Node dies and the store with it, or an
 *   earlier build of the cluster (the start before a change to it).
 *
 * Where the time goes: the server runs with bench/lib/start-probe.cjs preloaded (events with
 * wall-clock times: module loading, initdb/pg_ctl, the migrations check, listen, worker threads),
 * and the cluster's own log (postgres/log) gives the shutdown, the start and the redo.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { infoResult, limitResult, log, median, percentile, type Result } from '../lib/measure';
import { postmasterPid, processTree } from '../lib/memory';
import {
  api,
  PREVIOUS_IS_CLUSTER,
  PREVIOUS_KIND,
  PREVIOUS_ROOT,
  ROOT,
  spawnServe,
  startService,
  stopOrphanedCluster,
  type Service,
} from '../lib/service';
import { seedPendingProducts } from './poll';

const RECORDS = Number(process.env.BENCH_CRASH_RECORDS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_CRASH_ROUNDS ?? 5);
const READY_WITHIN_MS = 3_000;
const PUSH_SECONDS = 3;
const PUSH_BATCH = 200;
const POLLERS = 4;
const PROBE = path.join(ROOT, 'bench', 'lib', 'start-probe.cjs');

type VariantName = 'embedded, service killed' | 'embedded, service and cluster killed' | 'previous build, service killed';

type Store = {
  name: string;
  service: Service;
  port: number;
  child: ChildProcess | undefined;
  batches: number;
  embedded: boolean;
  probeFiles: string[];
};

type Phases = Record<string, number>;

export type CrashRound = {
  variant: VariantName;
  round: number;
  readyMs: number;
  listeningMs: number;
  firstPollAfterMs: number | null;
  pollsAnswered: number;
  pollP99Ms: number;
  pushesAcknowledged: number;
  lost: number;
  pendingAfter: number;
  phases: Phases;
  postgres: Phases;
  breakdown: Record<string, number | undefined>;
  loadBefore: number;
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function openStore(name: string, root: string | undefined, embedded: boolean): Promise<Store> {
  const port = await freePort();
  const service = await startService({ backend: 'embedded', ...(root ? { root } : {}), env: { PORT: String(port) } });
  log(`crash-restart: seeding ${RECORDS.toLocaleString('en')} products into ${name}`);
  await seedPendingProducts(service, RECORDS);
  return { name, service, port, child: undefined, batches: 0, embedded, probeFiles: [] };
}

/** Polls the page from POLLERS clients until stopped; connection errors (the restart) are retried every 20 ms. */
function pollLoop(store: Store, killedAt: () => number | undefined) {
  let running = true;
  const latencies: number[] = [];
  let firstAfterKill: number | null = null;
  const url = `http://127.0.0.1:${store.port}/api/v1/updated-products?limit=50`;
  const headers = { authorization: `Bearer ${store.service.token}` };
  const loops = Array.from({ length: POLLERS }, async () => {
    while (running) {
      const started = performance.now();
      const ok = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) })
        .then(async (r) => (await r.arrayBuffer(), r.ok))
        .catch(() => false);
      if (ok) {
        latencies.push(performance.now() - started);
        const kill = killedAt();
        if (kill !== undefined && firstAfterKill === null && started > kill) firstAfterKill = performance.now() - kill;
      } else await sleep(20);
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      latencies.sort((a, b) => a - b);
      return { answered: latencies.length, p99Ms: latencies.length ? percentile(latencies, 99) : NaN, firstAfterKill };
    },
  };
}

const batchOf = (n: number) =>
  Array.from({ length: PUSH_BATCH }, (_, k) => {
    const i = (n * PUSH_BATCH + k) % RECORDS;
    return { external_id: `POLL-${i}`, erp_id: i, name: `Product ${i} crash batch ${n}` };
  });

/** Renames PUSH_BATCH products per request until stopped; returns the batches answered 2xx. */
function pushLoop(store: Store) {
  let running = true;
  const acknowledged: number[] = [];
  const done = (async () => {
    while (running) {
      const n = store.batches++;
      try {
        await api(store.service, 'POST', '/api/v1/products', { products: batchOf(n) });
        acknowledged.push(n);
      } catch {
        return; // the kill
      }
    }
  })();
  return {
    stopSoon: () => (running = false),
    async acknowledged() {
      await done;
      return acknowledged;
    },
  };
}

/** The cluster's log lines of interest after `since` (ms since the epoch), as ms offsets from it. */
export function postgresPhases(dataDir: string, since: number): Phases {
  const dir = path.join(dataDir, 'postgres', 'log');
  let text = '';
  try {
    for (const file of readdirSync(dir)) text += readFileSync(path.join(dir, file), 'utf8');
  } catch {
    return {};
  }
  const phases: Phases = {};
  const patterns: Array<[string, RegExp]> = [
    ['fast shutdown requested', /received fast shutdown request/],
    ['shut down', /database system is shut down/],
    ['starting', /starting PostgreSQL/],
    ['interrupted (crash recovery)', /database system was interrupted/],
    ['redo starts', /redo starts at/],
    ['redo done', /redo done at/],
    ['ready to accept connections', /database system is ready to accept connections/],
  ];
  for (const line of text.split('\n')) {
    const stamp = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) (UTC|GMT)/.exec(line);
    if (!stamp) continue;
    const t = Date.parse(`${stamp[1]!.replace(' ', 'T')}Z`);
    if (t < since) continue;
    for (const [name, pattern] of patterns) if (pattern.test(line) && phases[name] === undefined) phases[name] = t - since;
    const redo = /redo done at .*elapsed: ([\d.]+) s/.exec(line);
    if (redo) phases['redo elapsed (its own figure)'] = Number(redo[1]) * 1000;
  }
  return phases;
}

type ProbeEvent = {
  event: string;
  t: number;
  thread: number;
  what?: string;
  name?: string;
  ms?: number;
  requireMs?: number;
  processStart?: number;
};

/**
 * Milliseconds from the spawn to the first of each event of the main thread (`exec-start pg_ctl
 * stop`, `require-end ../dist/cli/main.js`, `worker-online <file>`, …; see bench/lib/start-probe.cjs).
 */
function probePhases(file: string, spawnedAt: number): Phases {
  let events: ProbeEvent[];
  try {
    events = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as ProbeEvent);
  } catch {
    return {};
  }
  const phases: Phases = {};
  for (const e of events) {
    if (e.thread !== 0 && !e.event.startsWith('worker')) continue;
    const key = [e.event, e.what, e.name].filter(Boolean).join(' ');
    if (phases[key] === undefined) phases[key] = Math.round(e.t - spawnedAt);
    if (e.event === 'preload' && e.thread === 0 && e.processStart !== undefined)
      phases['process start'] = Math.round(e.processStart - spawnedAt);
    if (e.event === 'listening' && e.requireMs !== undefined) phases['require ms until listening, in total'] = e.requireMs;
  }
  // Modules `serve` requires after main.js has loaded and before the cluster is touched (./app …).
  const mainLoaded = phases['require-end ../dist/cli/main.js'];
  const firstCluster = phases['exec-start pg_ctl stop'] ?? phases['exec-start pg_ctl start'] ?? phases['listen-call'];
  if (mainLoaded !== undefined && firstCluster !== undefined)
    phases['require ms between main.js and the cluster'] = events
      .filter((e) => e.thread === 0 && e.event === 'require-end' && e.ms !== undefined)
      .filter((e) => e.t - spawnedAt > mainLoaded && e.t - spawnedAt <= firstCluster)
      .reduce((sum, e) => sum + e.ms!, 0);
  return phases;
}

/** Where a restart's time went, in ms, from the probe's and the cluster's timestamps (undefined: not in this start). */
export function restartBreakdown(r: Pick<CrashRound, 'phases' | 'postgres' | 'readyMs'>): Record<string, number | undefined> {
  const p = r.phases;
  const g = r.postgres;
  const span = (from: number | undefined, to: number | undefined) => (from === undefined || to === undefined ? undefined : to - from);
  const mainLoaded = p['require-end ../dist/cli/main.js'];
  const firstCluster = p['exec-start pg_ctl stop'] ?? p['exec-start pg_ctl start'] ?? p['listen-call'];
  const clusterUp = p['exec-end pg_ctl start'];
  // The webhook worker's thread: spawned after listening until issue 29's restart work, at the top of `serve` since.
  const webhookWorker = 'worker-created worker-thread.entry.js';
  const firstClusterExec = p['exec-start pg_ctl stop'] ?? p['exec-start pg_ctl start'];
  return {
    'Node start (to the preload)': p.preload,
    'loading the modules of dist/cli/main.js': span(p.preload, mainLoaded),
    'serve: its modules, config, lock, OS user (id), until the first pg_ctl': span(mainLoaded, firstCluster),
    'orphan stop (pg_ctl stop -m fast)': span(p['exec-start pg_ctl stop'], p['exec-end pg_ctl stop']),
    'cluster start (pg_ctl start -w)': span(p['exec-start pg_ctl start'], clusterUp),
    '  of which crash recovery (interrupted → ready to accept, cluster log)': span(
      g['interrupted (crash recovery)'],
      g['ready to accept connections'],
    ),
    'first pg_ctl → migrations check (modules that serve, loaded alongside; database check)': span(
      firstClusterExec,
      p['migrations-check-start'],
    ),
    'cluster up → migrations check': span(clusterUp, p['migrations-check-start']),
    'migrations check': span(p['migrations-check-start'], p['migrations-check-end']),
    'services, app, listen': span(p['migrations-check-end'] ?? clusterUp, p.listening),
    'listening → /ready 200': span(p.listening, r.readyMs),
    'the worker thread starting (created → online)': span(p[webhookWorker], p[webhookWorker.replace('worker-created', 'worker-online')]),
    'the worker thread created, ms before listening': span(p[webhookWorker], p.listening),
    'require() in total until listening (overlaps the above)': p['require ms until listening, in total'],
  };
}

async function killService(store: Store, wholeCluster: boolean): Promise<void> {
  const cluster = wholeCluster ? processTree([postmasterPid(store.service.dataDir)].filter((p): p is number => p !== undefined)) : [];
  const exited = store.child ? new Promise((resolve) => store.child!.once('exit', resolve)) : store.service.crash().then(() => undefined);
  if (store.child) store.child.kill('SIGKILL');
  // The cluster's processes in the same instant (a container or cgroup killed as a whole).
  for (const p of cluster) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await exited;
  for (let waited = 0; cluster.some((p) => isAlive(p)) && waited < 10_000; waited += 20) await sleep(20);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function round(store: Store, variant: VariantName, n: number): Promise<CrashRound> {
  const loadBefore = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  const kill: { at?: number } = {};
  const polls = pollLoop(store, () => kill.at);
  const pushes = pushLoop(store);
  await sleep(PUSH_SECONDS * 1000);
  // Killed with a push in flight (the loop never waits between requests).
  kill.at = performance.now();
  await killService(store, variant === 'embedded, service and cluster killed');
  pushes.stopSoon();
  const acknowledged = await pushes.acknowledged();

  const probeFile = path.join(tmpdir(), `sgw-start-probe-${process.pid}-${store.port}-${store.probeFiles.length}.jsonl`);
  rmSync(probeFile, { force: true });
  // Removed once the process that writes it has exited (closeStore).
  store.probeFiles.push(probeFile);
  const spawnedWall = Date.now();
  const spawned = performance.now();
  let output = '';
  const serving = spawnServe(
    { ...store.service.env, START_PROBE_OUT: probeFile },
    { root: store.service.root, nodeArgs: ['--require', PROBE], onStdout: (chunk) => (output += chunk) },
  );
  let listeningMs = NaN;
  serving.then(
    () => (listeningMs = performance.now() - spawned),
    () => undefined,
  );
  const readyUrl = `http://127.0.0.1:${store.port}/ready`;
  while ((await fetch(readyUrl, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined))?.status !== 200) {
    if (performance.now() - spawned > 120_000) throw new Error(`${variant}: not ready 120 s after the restart\n${output.slice(-2000)}`);
    await sleep(20);
  }
  const readyMs = performance.now() - spawned;
  const { child } = await serving;
  store.child = child;

  // Nothing lost: every acknowledged push is already stored (unless a later push, acknowledged or
  // in flight at the kill, renamed the same products since: small stores wrap around).
  let lost = 0;
  const lostBatches: number[] = [];
  const cycle = Math.floor(RECORDS / PUSH_BATCH);
  for (const b of acknowledged) {
    if (b + cycle < store.batches) continue;
    const r = await api<{ created: number; updated: number }>(store.service, 'POST', '/api/v1/products', { products: batchOf(b) });
    lost += r.created + r.updated;
    if (r.created + r.updated > 0) lostBatches.push(b);
  }
  if (lostBatches.length > 0)
    log(
      `crash-restart ${variant} round ${n}: acknowledged batches not found as pushed: ${lostBatches.join(', ')} (the in-flight one was ${store.batches - 1})`,
    );
  const page = await api<{ meta: { total: number } }>(store.service, 'GET', '/api/v1/updated-products?limit=1');
  const pollStats = await polls.stop();
  child.stdout!.removeAllListeners('data');
  child.stdout!.resume();
  const result: CrashRound = {
    variant,
    round: n,
    readyMs,
    listeningMs,
    firstPollAfterMs: pollStats.firstAfterKill,
    pollsAnswered: pollStats.answered,
    pollP99Ms: pollStats.p99Ms,
    pushesAcknowledged: acknowledged.length,
    lost,
    pendingAfter: page.meta.total,
    phases: probePhases(probeFile, spawnedWall),
    postgres: store.embedded ? postgresPhases(store.service.dataDir, spawnedWall) : {},
    breakdown: {},
    loadBefore,
  };
  result.breakdown = restartBreakdown(result);
  log(
    `crash-restart ${variant} round ${n}: ready ${readyMs.toFixed(0)} ms (listening ${listeningMs.toFixed(0)}), ` +
      `${acknowledged.length} pushes acknowledged, ${lost} records lost, ${page.meta.total} pending (load ${loadBefore}); ` +
      `breakdown ${JSON.stringify(result.breakdown)}; probe ${JSON.stringify(result.phases)}; cluster log ${JSON.stringify(result.postgres)}`,
  );
  return result;
}

async function closeStore(store: Store): Promise<void> {
  if (store.child && store.child.exitCode === null && store.child.signalCode === null) {
    const exited = new Promise((resolve) => store.child!.once('exit', resolve));
    store.child.kill('SIGTERM');
    await exited;
  }
  await stopOrphanedCluster(store.service.dataDir);
  await store.service.stop();
  for (const file of store.probeFiles) rmSync(file, { force: true });
}

export async function runCrashRestart(): Promise<{ results: Result[]; rounds: CrashRound[] }> {
  const stores: Store[] = [];
  const rounds: CrashRound[] = [];
  try {
    const embedded = await openStore('the embedded store', undefined, true);
    stores.push(embedded);
    const variants: Array<{ name: VariantName; store: Store }> = [
      { name: 'embedded, service killed', store: embedded },
      { name: 'embedded, service and cluster killed', store: embedded },
    ];
    if (PREVIOUS_ROOT) {
      const previous = await openStore(`the previous build (${PREVIOUS_KIND})`, PREVIOUS_ROOT, PREVIOUS_IS_CLUSTER);
      stores.push(previous);
      variants.push({ name: 'previous build, service killed', store: previous });
    } else log('crash-restart: no previous build (BENCH_PREVIOUS_ROOT): the new build alone');
    for (let n = 1; n <= ROUNDS; n++) {
      // The order rotates each round, so that drift on the machine reaches every variant alike.
      for (let k = 0; k < variants.length; k++) {
        const v = variants[(n - 1 + k) % variants.length]!;
        rounds.push(await round(v.store, v.name, n));
      }
    }
  } finally {
    for (const store of stores) await closeStore(store).catch((error: unknown) => log(`crash-restart clean-up: ${String(error)}`));
  }
  const of = (variant: VariantName) => rounds.filter((r) => r.variant === variant);
  const readyMedian = (variant: VariantName) => (of(variant).length ? median(of(variant).map((r) => r.readyMs)) : null);
  const previous = readyMedian('previous build, service killed');
  const lost = rounds.filter((r) => r.variant !== 'previous build, service killed').reduce((sum, r) => sum + r.lost, 0);
  const wrongTotals = rounds.filter((r) => r.pendingAfter !== RECORDS).length;
  const k = `${RECORDS / 1000}k records, polls and pushes running`;
  return {
    rounds,
    results: [
      limitResult(
        'crash-restart',
        `kill -9 → /ready ms (embedded, service killed; ${k})`,
        readyMedian('embedded, service killed')!,
        READY_WITHIN_MS,
        previous,
      ),
      infoResult(
        'crash-restart',
        'kill -9 → /ready ms, slowest round (embedded, service killed)',
        Math.max(...of('embedded, service killed').map((r) => r.readyMs)),
      ),
      limitResult(
        'crash-restart',
        `kill -9 → /ready ms (embedded, service and cluster killed: crash recovery; ${k})`,
        readyMedian('embedded, service and cluster killed')!,
        READY_WITHIN_MS,
        previous,
      ),
      ...(previous === null ? [] : [infoResult('crash-restart', `kill -9 → /ready ms (previous build, ${PREVIOUS_KIND}; ${k})`, previous)]),
      limitResult('crash-restart', 'records of acknowledged pushes lost (embedded, every round)', lost, 0),
      limitResult('crash-restart', `rounds whose pending total was not ${RECORDS.toLocaleString('en')} after the restart`, wrongTotals, 0),
    ],
  };
}
