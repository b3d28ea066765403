/**
 * CPU per request of the service's hot paths, measured where throughput is too noisy to compare:
 * the server process's own CPU time (utime + stime from /proc/<pid>/stat, every thread) divided by
 * the requests it served, and beside it the CPU of the PostgreSQL backends serving it. `GET /api/v1/updated-products?limit=50` over 10,000 pending products and
 * the same page through `POST /graphql`, and `POST /api/v1/failures` (no webhook configuration: the
 * HTTP path and the insert), against the raw node:http + pg poll baseline in the same run.
 *
 *   npx tsx bench/probes/cpu-per-request.ts [variant=/path/to/checkout ...]
 *
 * Each variant is a checkout with `bin/` and a built `dist/` (default: this one, as `this`), with
 * environment settings after a `?` (`main-warn=/work/main?LOG_LEVEL=warn`); rounds
 * alternate the variants so that drift on the machine hits all alike. CPU_REQUESTS (default 3000),
 * CPU_ROUNDS (3), CPU_CONNECTIONS (16), CPU_LOG_LEVEL (info), CPU_ONLY=poll,graphql,report,raw,
 * CPU_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { backendCpuBetween, backendCpuSeconds, processCpuSeconds } from '../lib/cpu';
import { log, median } from '../lib/measure';
import { api, freshDatabase, ROOT, runCliCommand } from '../lib/service';
import { GRAPHQL_PAGE, seedPendingProducts } from '../scenarios/poll';

const REQUESTS = Number(process.env.CPU_REQUESTS ?? 3000);
const ROUNDS = Number(process.env.CPU_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.CPU_CONNECTIONS ?? 16);
const LOG_LEVEL = process.env.CPU_LOG_LEVEL ?? 'info';
const ONLY = new Set((process.env.CPU_ONLY ?? 'poll,graphql,report,raw').split(','));
const NODE_ARGS = process.env.CPU_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

type Server = { name: string; url: string; pid: number; child: ChildProcess };

function startScriptFlags(): { env: Record<string, string>; flags: string[] } {
  const start = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.split(/\s+/);
  const env = Object.fromEntries(words.filter((w) => /^[A-Z_][A-Z0-9_]*=/.test(w)).map((w) => w.split('=', 2) as [string, string]));
  return { env, flags: words.filter((w) => w.startsWith('--')) };
}

function listening(child: ChildProcess, pattern: (line: string) => string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      for (const line of out.split('\n')) {
        const url = pattern(line);
        if (url) {
          child.stdout!.off('data', onData);
          child.stdout!.resume();
          return resolve(url);
        }
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out.slice(-2000)}`)));
  });
}

async function startVariant(name: string, root: string, env: NodeJS.ProcessEnv): Promise<Server> {
  const start = startScriptFlags();
  // A fixed port: at LOG_LEVEL=warn the server does not log the line that names its URL.
  const port = await freePort();
  const child = spawn(process.execPath, [...start.flags, ...NODE_ARGS, path.join(root, 'bin', 'sync-gateway.js'), 'serve'], {
    env: { ...start.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout!.resume();
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}`);
    const up = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (i > 600) throw new Error(`${name} did not answer /health`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { name, url, pid: child.pid!, child };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function startRaw(databaseUrl: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...NODE_ARGS, path.join(ROOT, 'bench', 'baselines', 'raw-poll-server.ts'), databaseUrl],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await listening(child, (line) => (line.startsWith('http') ? line.trim() : undefined));
  return { name: 'raw', url, pid: child.pid!, child };
}

async function stop(server: Server): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

/** A connection to the bench database, for reading its backends' CPU. */
let database: Client | undefined;

/**
 * CPU milliseconds the server (`ms`) and its database backends (`dbMs`) spent per request over
 * `amount` requests (after a warm-up).
 */
async function cpuPerRequest(server: Server, request: { path: string; method?: 'GET' | 'POST'; body?: string }, token?: string) {
  const options = {
    url: `${server.url}${request.path}`,
    connections: CONNECTIONS,
    method: request.method ?? 'GET',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(request.body ? { 'content-type': 'application/json' } : {}),
    },
    ...(request.body ? { body: request.body } : {}),
  };
  await autocannon({ ...options, amount: Math.min(500, REQUESTS) });
  const dbBefore = database ? (await backendCpuSeconds(database)).byPid : new Map<number, number>();
  const before = processCpuSeconds(server.pid);
  const started = performance.now();
  const r = await autocannon({ ...options, amount: REQUESTS });
  const cpu = (processCpuSeconds(server.pid) - before) * 1000;
  const dbCpu = database ? backendCpuBetween(dbBefore, (await backendCpuSeconds(database)).byPid) * 1000 : 0;
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${server.name}: ${r.non2xx} non-2xx, ${r.errors} errors on ${request.path}`);
  const served = r.requests.total;
  return { ms: cpu / served, dbMs: dbCpu / served, rps: served / ((performance.now() - started) / 1000) };
}

const REPORT = JSON.stringify({
  entity_type: 'product',
  external_id: 'SKU-1001',
  source: 'webshop',
  error_message: 'Price must not be negative',
  error_details: [{ field: 'price', message: 'must be >= 0' }],
});

async function main(): Promise<void> {
  const variants = process.argv.slice(2).map((arg) => {
    const [name, spec] = arg.includes('=') ? (arg.split(/=(.*)/s, 2) as [string, string]) : [path.basename(arg), arg];
    const [root, settings = ''] = spec.split('?', 2) as [string, string?];
    return { name, root: path.resolve(root), env: Object.fromEntries(new URLSearchParams(settings)) };
  });
  if (variants.length === 0) variants.push({ name: 'this', root: ROOT, env: {} });
  // An interruption while the database is made and migrated is acted on once it exists.
  let interrupted = false;
  const remember = () => (interrupted = true);
  process.on('SIGINT', remember).on('SIGTERM', remember);
  const db = await freshDatabase();
  log(`database ${new URL(db.url).pathname.slice(1)}`);
  process.off('SIGINT', remember).off('SIGTERM', remember);
  if (interrupted) {
    await db.drop();
    process.exit(130);
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sgw-cpu-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    PORT: '0',
    RATE_LIMIT_READ_PER_MINUTE: '1000000000',
    RATE_LIMIT_WRITE_PER_MINUTE: '1000000000',
  };
  const servers: Server[] = [];
  let cleaning: Promise<void> | undefined;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      for (const server of servers) await stop(server);
      await database?.end().catch(() => undefined);
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    })());
  // Interrupted (Ctrl-C, a timeout): the servers, the database and the data directories still go.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
  }
  try {
    const token = (await runCliCommand(['token', 'create', '--name', 'cpu-bench'], env)).trim().split('\n').pop()!;
    // Each server keeps its own data directory (its control socket lives there).
    for (const v of variants)
      servers.push(await startVariant(v.name, v.root, { ...env, LOG_LEVEL, ...v.env, DATA_DIR: mkdtempSync(path.join(dataDir, 'v-')) }));
    await seedPendingProducts({ url: servers[0]!.url, token } as Parameters<typeof seedPendingProducts>[0], 10_000);
    await api({ url: servers[0]!.url, token }, 'GET', '/api/v1/updated-products?limit=1');
    if (ONLY.has('raw')) servers.push(await startRaw(db.url));
    const samples = new Map<string, number[]>();
    const add = (key: string, value: number) => samples.set(key, [...(samples.get(key) ?? []), value]);
    let round = 0;
    const record = (key: string, r: { ms: number; dbMs: number; rps: number }) => {
      add(key, r.ms);
      add(`${key} (database)`, r.dbMs);
      log(`round ${round} ${key}: ${r.ms.toFixed(3)} ms CPU/req, database ${r.dbMs.toFixed(3)} (${r.rps.toFixed(0)} req/s)`);
    };
    database = new Client({ connectionString: db.url });
    await database.connect();
    for (round = 1; round <= ROUNDS; round++) {
      for (const server of servers) {
        if (server.name === 'raw') {
          const r = await cpuPerRequest(server, { path: '/' });
          record('raw poll', r);
          continue;
        }
        if (ONLY.has('poll')) {
          const r = await cpuPerRequest(server, { path: '/api/v1/updated-products?limit=50' }, token);
          record(`${server.name} poll`, r);
        }
        if (ONLY.has('graphql')) {
          // GraphQL answers errors with 200: look at one answer before counting any.
          const probe = await api({ url: server.url, token }, 'POST', '/graphql', JSON.parse(GRAPHQL_PAGE) as unknown);
          if (JSON.stringify(probe).includes('"errors"')) throw new Error(`${server.name}: ${JSON.stringify(probe).slice(0, 500)}`);
          const r = await cpuPerRequest(server, { path: '/graphql', method: 'POST', body: GRAPHQL_PAGE }, token);
          record(`${server.name} graphql poll`, r);
        }
        if (ONLY.has('report')) {
          const r = await cpuPerRequest(server, { path: '/api/v1/failures', method: 'POST', body: REPORT }, token);
          record(`${server.name} report`, r);
        }
      }
    }
    const summary = Object.fromEntries([...samples].map(([key, xs]) => [key, Number(median(xs).toFixed(3))]));
    console.log(JSON.stringify({ requests: REQUESTS, connections: CONNECTIONS, logLevel: LOG_LEVEL, medianCpuMsPerRequest: summary }));
  } finally {
    await cleanUp();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
