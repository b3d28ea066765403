/**
 * Side-by-side comparison of two builds of the service on the push path (not part of
 * `npm run bench`): product-sync and stock-upsert, each build on its own fresh PostgreSQL
 * database, against the same raw baselines, rounds interleaved (the builds alternate which goes
 * first), medians of the per-round ratios.
 *
 *   npx tsx bench/probes/compare-builds.ts <root of build A> <root of build B>
 *
 * A root is a directory with bin/, dist/, prisma/ and package.json (a copy of a built checkout);
 * each service runs with the node flags and environment of its build's `npm start`. Knobs:
 * BENCH_ROUNDS (default 5), BENCH_ONLY (product-sync,stock-upsert), BENCH_STOCK_REQUESTS.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { backendCpuBetween, backendCpuSeconds, processCpuSeconds } from '../lib/cpu';
import { log, median, timed } from '../lib/measure';
import { api, freshDatabase, type FreshDatabase } from '../lib/service';
import { catalogue, rawSync } from '../scenarios/product-sync';
import { ENTRIES, rawUpsert, stockBatch } from '../scenarios/stock-upsert';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_STOCK_REQUESTS ?? 10);
const CATALOGUE = Number(process.env.BENCH_CATALOGUE ?? 5_000);
const PER_REQUEST = 500;
const only = process.env.BENCH_ONLY?.split(',');
const wanted = (name: string) => !only || only.includes(name);

type Build = { name: string; root: string };
type Running = { build: Build; url: string; token: string; db: FreshDatabase; pid: number; stop(): Promise<void> };

/** CPU seconds of the service process, and of each PostgreSQL backend connected to its database. */
async function cpuOf(s: Running, client: Client): Promise<{ service: number; db: Map<number, number> }> {
  const { byPid } = await backendCpuSeconds(client, new URL(s.db.url).pathname.slice(1));
  return { service: processCpuSeconds(s.pid), db: byPid };
}

/** Runs `work` and answers its wall time and the CPU time it cost the service and its database, per request. */
async function measured(s: Running, client: Client, requests: number, work: () => Promise<void>) {
  const before = await cpuOf(s, client);
  const { seconds } = await timed(work);
  const after = await cpuOf(s, client);
  return {
    seconds,
    serviceCpuMs: ((after.service - before.service) * 1000) / requests,
    dbCpuMs: (backendCpuBetween(before.db, after.db) * 1000) / requests,
  };
}

/** The environment assignments and node flags of a build's `npm start`, as bench/lib/service.ts runs the service. */
function startScript(root: string): { env: Record<string, string>; nodeFlags: string[] } {
  const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.split(/\s+/);
  const assignments = words.filter((word) => /^[A-Z_][A-Z0-9_]*=/.test(word)).map((word) => word.split('=', 2) as [string, string]);
  return { env: Object.fromEntries(assignments), nodeFlags: words.filter((word) => word.startsWith('--')) };
}

function cli(root: string, args: string[], env: NodeJS.ProcessEnv, onLine?: (line: string) => boolean) {
  return new Promise<{ out: string; child: ReturnType<typeof spawn> }>((resolve, reject) => {
    const start = args[0] === 'serve' ? startScript(root) : { env: {}, nodeFlags: [] };
    const child = spawn(process.execPath, [...start.nodeFlags, path.join(root, 'bin', 'sync-gateway.js'), ...args], {
      env: { ...start.env, ...env },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (onLine && out.split('\n').some(onLine)) resolve({ out, child });
    });
    child.stderr.on('data', (d: Buffer) => process.stderr.write(d));
    child.on('close', (code) => (code === 0 ? resolve({ out, child }) : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

async function start(build: Build): Promise<Running> {
  const db = await freshDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sgw-compare-'));
  const env = {
    ...process.env,
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    PORT: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_READ_PER_MINUTE: '1000000000',
    RATE_LIMIT_WRITE_PER_MINUTE: '1000000000',
  };
  await cli(build.root, ['migrate'], env);
  const token = (await cli(build.root, ['token', 'create', '--name', 'compare'], env)).out.trim().split('\n').pop()!;
  const { out, child } = await cli(build.root, ['serve'], { ...env, LOG_LEVEL: 'info' }, (l) => l.includes('"sync-gateway listening"'));
  const url = (JSON.parse(out.split('\n').find((l) => l.includes('"sync-gateway listening"'))!) as { url: string }).url;
  child.stdout!.resume();
  return {
    build,
    url,
    token,
    db,
    pid: child.pid!,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
      await db.drop();
    },
  };
}

const chunks = <T>(xs: T[], n: number) => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n));
const order = <T>(xs: T[], round: number) => (round % 2 ? xs : [...xs].reverse());

/** One scenario: how to seed, and one round by hand (raw) and through a service. */
type Scenario = {
  name: string;
  unit: string;
  /** Units (products, rows) and requests per round. */
  units: number;
  requests: number;
  seed(services: Running[], client: Client): Promise<void>;
  raw(client: Client, round: number): Promise<void>;
  service(s: Running, round: number): Promise<void>;
};

const productSync: Scenario = {
  name: 'product-sync',
  unit: 'products',
  units: CATALOGUE,
  requests: Math.ceil(CATALOGUE / PER_REQUEST),
  async seed(services) {
    for (const s of services) {
      for (const prefix of ['SVC', 'RAW']) {
        for (const products of chunks(catalogue(prefix, 0), PER_REQUEST)) await api(s, 'POST', '/api/v1/products', { products });
      }
    }
  },
  async raw(client, round) {
    for (const products of chunks(catalogue('RAW', round), PER_REQUEST)) await rawSync(client, products, 'erp_sync');
  },
  async service(s, round) {
    for (const products of chunks(catalogue('SVC', round), PER_REQUEST)) {
      const r = await api<{ updated: number }>(s, 'POST', '/api/v1/products', { products });
      if (r.updated !== PER_REQUEST / 10) throw new Error(`unexpected ${JSON.stringify(r).slice(0, 200)}`);
    }
  },
};

/** Request i of round r writes batch (r - 1) × REQUESTS + i + 1: half of the entries change each time. */
const stockBatchOf = (supplier: string, round: number, i: number) => stockBatch(supplier, (round - 1) * REQUESTS + i + 1);

const stockUpsert: Scenario = {
  name: 'stock-upsert',
  unit: 'rows',
  units: REQUESTS * ENTRIES,
  requests: REQUESTS,
  async seed(services, client) {
    for (const s of services) await api(s, 'POST', '/api/v1/stocks', { stocks: stockBatch('SUP-service', 0) });
    await rawUpsert(client, stockBatch('SUP-raw', 0));
  },
  async raw(client, round) {
    for (let i = 0; i < REQUESTS; i++) await rawUpsert(client, stockBatchOf('SUP-raw', round, i));
  },
  async service(s, round) {
    for (let i = 0; i < REQUESTS; i++) {
      const r = await api<{ updated: number }>(s, 'POST', '/api/v1/stocks', { stocks: stockBatchOf('SUP-service', round, i) });
      if (r.updated !== ENTRIES / 2) throw new Error(`unexpected ${JSON.stringify(r).slice(0, 200)}`);
    }
  },
};

type Sample = { ratio: number; serviceCpuMs: number; dbCpuMs: number };

async function compare(scenario: Scenario, services: Running[]): Promise<void> {
  const samples: Record<string, Sample[]> = Object.fromEntries(services.map((s) => [s.build.name, []]));
  const rawDb: number[] = [];
  const client = new Client({ connectionString: services[0]!.db.url });
  await client.connect();
  try {
    await scenario.seed(services, client);
    const rawPid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    for (let round = 1; round <= ROUNDS; round++) {
      const rawCpu = processCpuSeconds(rawPid);
      const raw = await timed(() => scenario.raw(client, round));
      rawDb.push(((processCpuSeconds(rawPid) - rawCpu) * 1000) / scenario.requests);
      const line: string[] = [`raw ${(scenario.units / raw.seconds).toFixed(0)}/s`];
      for (const s of order(services, round)) {
        const m = await measured(s, client, scenario.requests, () => scenario.service(s, round));
        samples[s.build.name]!.push({ ratio: raw.seconds / m.seconds, serviceCpuMs: m.serviceCpuMs, dbCpuMs: m.dbCpuMs });
        line.push(`${s.build.name} ${(scenario.units / m.seconds).toFixed(0)}/s (${(raw.seconds / m.seconds).toFixed(3)})`);
      }
      log(`${scenario.name} round ${round}: ${line.join(', ')}`);
    }
  } finally {
    await client.end();
  }
  log(`${scenario.name}: raw database CPU ${median(rawDb).toFixed(1)} ms per request (median of ${rawDb.length} rounds)`);
  for (const s of services) {
    const xs = samples[s.build.name]!;
    log(
      `${scenario.name} ${s.build.name} (${s.build.root}): ratio ${median(xs.map((x) => x.ratio)).toFixed(3)}, ` +
        `CPU per request: service ${median(xs.map((x) => x.serviceCpuMs)).toFixed(1)} ms, database ${median(xs.map((x) => x.dbCpuMs)).toFixed(1)} ms (medians of ${xs.length} rounds)`,
    );
  }
}

async function main(): Promise<void> {
  const builds = process.argv.slice(2).map((root, i) => ({ name: String.fromCharCode(65 + i), root: path.resolve(root) }));
  if (builds.length < 1) throw new Error('usage: compare-builds.ts <root A> [<root B> …]');
  for (const scenario of [productSync, stockUpsert]) {
    if (!wanted(scenario.name)) continue;
    const services: Running[] = [];
    try {
      for (const b of builds) services.push(await start(b));
      await compare(scenario, services);
    } finally {
      for (const s of services) await s.stop();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
