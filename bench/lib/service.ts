/**
 * The service as a user runs it (`node bin/sync-gateway.js serve`, built dist/), on a fresh
 * PostgreSQL database or on the embedded store (no DATABASE_URL: the service runs its own
 * PostgreSQL cluster in a fresh DATA_DIR, ADR 0042), with an API token made by the CLI.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { postmasterPid, serviceMemory, type TreeMemory } from './memory';

export const ROOT = path.join(__dirname, '..', '..');
/**
 * The build the scenarios measure: this checkout, or BENCH_SERVICE_ROOT (a copy of a built checkout,
 * so that a colleague's `npm run build` in the shared tree cannot swap dist/ under a running bench).
 */
export const SERVICE_ROOT = process.env.BENCH_SERVICE_ROOT ? path.resolve(process.env.BENCH_SERVICE_ROOT) : ROOT;
/**
 * The previous build (PGlite, commit 9226f8d), built, for the side-by-side scenarios of issue 29:
 * BENCH_PREVIOUS_ROOT, default ../wt-fixture beside this checkout; those scenarios skip it when absent.
 */
export const PREVIOUS_ROOT: string | undefined = (() => {
  const root = path.resolve(process.env.BENCH_PREVIOUS_ROOT ?? path.join(ROOT, '..', 'wt-fixture'));
  return existsSync(path.join(root, 'dist', 'cli', 'main.js')) ? root : undefined;
})();
/** Whether the previous build runs the embedded cluster (a build before a change to the start) rather than PGlite (issue 29's baseline). */
export const PREVIOUS_IS_CLUSTER =
  PREVIOUS_ROOT !== undefined && existsSync(path.join(PREVIOUS_ROOT, 'dist', 'db', 'embedded-postgres.js'));
/** What the previous build is, for the rows that name it: `PGlite`, or `embedded cluster, <commit>`. */
export const PREVIOUS_KIND: string | undefined = (() => {
  if (!PREVIOUS_ROOT) return undefined;
  if (!PREVIOUS_IS_CLUSTER) return 'PGlite';
  const head = spawnSync('git', ['-C', PREVIOUS_ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  return `embedded cluster, ${head || 'unknown commit'}`;
})();
export const BASE_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

export type FreshDatabase = { url: string; drop(): Promise<void> };

/** A new empty database on the benchmark server, migrated by the CLI of `root` (default: the build under test). */
export async function freshDatabase(root: string = SERVICE_ROOT): Promise<FreshDatabase> {
  const name = `sgw_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: BASE_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(BASE_DATABASE_URL);
  url.pathname = `/${name}`;
  await runCli(['migrate'], { DATABASE_URL: url.toString() }, root);
  return {
    url: url.toString(),
    async drop() {
      const c = new Client({ connectionString: BASE_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export type Service = {
  url: string;
  token: string;
  pid: number;
  /** The environment it runs with, for CLI commands against the same store. */
  env: NodeJS.ProcessEnv;
  dataDir: string;
  /** The checkout it runs from (bin/, dist/). */
  root: string;
  /** Resident set size of the Node process now, in bytes, read from /proc. */
  rss(): number;
  /** PSS of the Node process tree plus the embedded cluster's postmaster tree (issue 29). */
  memory(): TreeMemory;
  stop(): Promise<void>;
  /** `kill -9` of the Node process: it dies at once; its data directory (and an embedded postmaster) stay, as after a crash. */
  crash(): Promise<void>;
};

type CommonOptions = {
  env?: Record<string, string>;
  /** A built checkout other than SERVICE_ROOT (the previous build). */
  root?: string;
};

export type ServiceOptions = ({ backend: 'postgresql'; databaseUrl: string } | { backend: 'embedded' }) & CommonOptions;

/** The environment a service runs with (DATABASE_URL removed for the embedded store by the caller). */
export function baseEnv(options: ServiceOptions, dataDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...(options.backend === 'postgresql' ? { DATABASE_URL: options.databaseUrl } : { DATABASE_URL: '' }),
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: ENCRYPTION_KEY,
    PORT: '0',
    LOG_LEVEL: 'warn',
    // The benchmarks measure throughput, not the SPEC 8 limits (bench:rate-limit does that).
    RATE_LIMIT_READ_PER_MINUTE: '1000000000',
    RATE_LIMIT_WRITE_PER_MINUTE: '1000000000',
    // The webhook receiver (bench/lib/receiver-process.ts) listens on loopback.
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
    ...options.env,
  };
}

const ENCRYPTION_KEY = randomBytes(32).toString('hex');

/** `sync-gateway <args>` against the same store as a service started with `env`; `root`: another checkout's CLI. */
export function runCliCommand(args: string[], env: NodeJS.ProcessEnv, root: string = SERVICE_ROOT): Promise<string> {
  return runCli(args, env, root);
}

function runCli(args: string[], env: NodeJS.ProcessEnv, root: string = SERVICE_ROOT): Promise<string> {
  return new Promise((resolve, reject) => {
    const cli = path.join(root, 'bin', 'sync-gateway.js');
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`sync-gateway ${args.join(' ')} exited ${code}: ${err}`))));
  });
}

/** The environment assignments and node flags of `npm start`, so that the service runs exactly as a user starts it. */
export function startScript(root: string = SERVICE_ROOT): { env: Record<string, string>; nodeFlags: string[] } {
  const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.split(/\s+/);
  const assignments = words.filter((word) => /^[A-Z_][A-Z0-9_]*=/.test(word)).map((word) => word.split('=', 2) as [string, string]);
  return { env: Object.fromEntries(assignments), nodeFlags: words.filter((word) => word.startsWith('--')) };
}

export async function startService(options: ServiceOptions): Promise<Service> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sgw-bench-'));
  const root = options.root ?? SERVICE_ROOT;
  const env = baseEnv(options, dataDir);
  if (options.backend === 'embedded') delete env.DATABASE_URL;
  const token = (await runCli(['token', 'create', '--name', `bench-${randomBytes(3).toString('hex')}`], env, root))
    .trim()
    .split('\n')
    .pop()!;
  const { child, url } = await spawnServe(env, { root });
  // Logging stays on at info, as in production; the pipe is drained so it never blocks the service.
  if (process.env.BENCH_SERVICE_LOG) child.stdout!.pipe(createWriteStream(process.env.BENCH_SERVICE_LOG, { flags: 'a' }));
  else child.stdout!.resume();
  const pid = child.pid!;
  return {
    url,
    token,
    pid,
    env,
    dataDir,
    root,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024,
    memory: () => serviceMemory(pid, dataDir),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await stopOrphanedCluster(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
    async crash() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** After a `kill -9`, the embedded postmaster lives on: a fast shutdown (SIGINT), waited for (bench clean-up only). */
export async function stopOrphanedCluster(dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (pid === undefined) return;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  for (let waited = 0; waited < 30_000 && existsSync(`/proc/${pid}`); waited += 50) await sleep(50);
}

/**
 * `serve` as `npm start` runs it, on the store `env` names; resolves once it listens. `root`: a
 * checkout with `bin/` and a built `dist/` (side-by-side benches; default SERVICE_ROOT); `nodeArgs`:
 * extra node flags (default BENCH_NODE_ARGS); `onStdout`: every chunk of its log, from the first;
 * `onSpawn`: the child at once (before it listens).
 */
export async function spawnServe(
  env: NodeJS.ProcessEnv,
  options: { root?: string; nodeArgs?: string[]; onStdout?: (chunk: string) => void; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const root = options.root ?? SERVICE_ROOT;
  const start = startScript(root);
  const extra = options.nodeArgs ?? process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const cli = path.join(root, 'bin', 'sync-gateway.js');
  const child = spawn(process.execPath, [...start.nodeFlags, ...extra, cli, 'serve'], {
    env: { ...start.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  options.onSpawn?.(child);
  if (options.onStdout) child.stdout!.on('data', (d: Buffer) => options.onStdout!(d.toString()));
  return { child, url: await listeningUrl(child) };
}

function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"sync-gateway listening"'));
      if (line) {
        child.stdout!.off('data', onData);
        child.off('exit', onExit);
        resolve(JSON.parse(line).url);
      }
    };
    const onExit = (code: number | null) => reject(new Error(`serve exited ${code}: ${out}`));
    child.stdout!.on('data', onData);
    child.on('exit', onExit);
  });
}

/** Highest RSS of a process while `work` runs, sampled every 50 ms. */
export async function peakRss<T>(service: Service, work: () => Promise<T>): Promise<{ result: T; peakBytes: number }> {
  let peakBytes = service.rss();
  const timer = setInterval(() => {
    peakBytes = Math.max(peakBytes, service.rss());
  }, 50);
  try {
    const result = await work();
    return { result, peakBytes: Math.max(peakBytes, service.rss()) };
  } finally {
    clearInterval(timer);
  }
}

export async function api<T = unknown>(service: Pick<Service, 'url' | 'token'>, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${service.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${service.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} → ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** A baseline server from bench/baselines in a process of its own; it prints its URL when listening. */
export async function startBaselineProcess(
  script: string,
  databaseUrl: string,
): Promise<{ url: string; pid: number; close(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'baselines', script), databaseUrl], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
