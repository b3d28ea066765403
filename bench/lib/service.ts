/**
 * The service as a user runs it (`node bin/sync-gateway.js serve`), on a fresh PostgreSQL
 * database or a fresh PGlite data directory, with an API token made by the CLI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';

export const ROOT = path.join(__dirname, '..', '..');
const CLI = path.join(ROOT, 'bin', 'sync-gateway.js');
export const BASE_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

export type FreshDatabase = { url: string; drop(): Promise<void> };

/** A new empty database on the benchmark server, migrated by the service's own CLI. */
export async function freshDatabase(): Promise<FreshDatabase> {
  const name = `sgw_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: BASE_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(BASE_DATABASE_URL);
  url.pathname = `/${name}`;
  await runCli(['migrate'], { DATABASE_URL: url.toString() });
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
  /** Resident set size now, in bytes, read from /proc. */
  rss(): number;
  stop(): Promise<void>;
  /** `kill -9`: the process dies at once and its data directory stays, as after a crash. */
  crash(): Promise<void>;
};

export type ServiceOptions =
  { backend: 'postgresql'; databaseUrl: string; env?: Record<string, string> } | { backend: 'pglite'; env?: Record<string, string> };

function baseEnv(options: ServiceOptions, dataDir: string): NodeJS.ProcessEnv {
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
export function runCliCommand(args: string[], env: NodeJS.ProcessEnv, root: string = ROOT): Promise<string> {
  return runCli(args, env, root);
}

function runCli(args: string[], env: NodeJS.ProcessEnv, root: string = ROOT): Promise<string> {
  return new Promise((resolve, reject) => {
    const cli = root === ROOT ? CLI : path.join(root, 'bin', 'sync-gateway.js');
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`sync-gateway ${args.join(' ')} exited ${code}: ${err}`))));
  });
}

/** The environment assignments and node flags of `npm start`, so that the service runs exactly as a user starts it. */
function startScript(): { env: Record<string, string>; nodeFlags: string[] } {
  const start = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.split(/\s+/);
  const assignments = words.filter((word) => /^[A-Z_][A-Z0-9_]*=/.test(word)).map((word) => word.split('=', 2) as [string, string]);
  return { env: Object.fromEntries(assignments), nodeFlags: words.filter((word) => word.startsWith('--')) };
}

export async function startService(options: ServiceOptions): Promise<Service> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sgw-bench-'));
  const env = baseEnv(options, dataDir);
  if (options.backend === 'pglite') delete env.DATABASE_URL;
  const token = (await runCli(['token', 'create', '--name', `bench-${randomBytes(3).toString('hex')}`], env)).trim().split('\n').pop()!;
  const { child, url } = await spawnServe(env);
  // Logging stays on at info, as in production; the pipe is drained so it never blocks the service.
  if (process.env.BENCH_SERVICE_LOG) child.stdout!.pipe(createWriteStream(process.env.BENCH_SERVICE_LOG));
  else child.stdout!.resume();
  const pid = child.pid!;
  return {
    url,
    token,
    pid,
    env,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
    async crash() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * `serve` as `npm start` runs it, on the store `env` names; resolves once it listens. `root`: a
 * checkout with `bin/` and a built `dist/` (side-by-side benches); `nodeArgs`: extra node flags
 * (default BENCH_NODE_ARGS).
 */
export async function spawnServe(
  env: NodeJS.ProcessEnv,
  options: { root?: string; nodeArgs?: string[] } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const start = startScript();
  const extra = options.nodeArgs ?? process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const cli = options.root ? path.join(options.root, 'bin', 'sync-gateway.js') : CLI;
  const child = spawn(process.execPath, [...start.nodeFlags, ...extra, cli, 'serve'], {
    env: { ...start.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
