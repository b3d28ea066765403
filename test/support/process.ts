import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export const ROOT = path.join(__dirname, '..', '..');
/**
 * Processes of their own run the sources of this checkout: compiled once per run by jest's global
 * setup (test/support/process-build.ts, `TEST_PROCESS_BUILD`); outside a jest run, through tsx's
 * loader. Either way Node itself, not a wrapper that would stand between a signal and the process.
 */
const BUILD = process.env.TEST_PROCESS_BUILD;
/** Node's arguments before a module of src/. */
export const LOADER: string[] = BUILD ? [] : ['--import', 'tsx'];
/** The file of a module of src/ (`'db/data-dir-lock'`) for such a process. */
export const sourceModule = (name: string): string =>
  BUILD ? path.join(BUILD, 'dist', `${name}.js`) : path.join(ROOT, 'src', `${name}.ts`);
/** `node ...CLI <command>` runs sync-gateway. */
export const CLI = [...LOADER, sourceModule('cli/main')];

/**
 * The environment of a service process (or a CLI command) on its own embedded store in `dataDir`,
 * listening on a free port of loopback; `extra` adds or overrides variables.
 */
export function embeddedEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...extra };
}

/**
 * The environment of a service process (or a CLI command) on the PostgreSQL database at
 * `databaseUrl`, with an ENCRYPTION_KEY of its own and listening on a free port of loopback;
 * `extra` adds or overrides variables.
 */
export function postgresEnv(databaseUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

/** The arguments of `sync-gateway webhook add` for a configuration delivering `entityType` events to `url`. */
export function webhookAddArgs(url: string, entityType: string, direction: 'to_erp' | 'to_webshop', secret?: string): string[] {
  return ['webhook', 'add', '--url', url, '--entity-type', entityType, '--direction', direction, ...(secret ? ['--secret', secret] : [])];
}

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** `sync-gateway <args>` as a process of its own, from the sources. */
export function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { env, cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A `sync-gateway serve` process from its start: its output so far, and its exit. */
export type ServeChild = {
  child: ChildProcessWithoutNullStreams;
  /** stdout and stderr so far. */
  output: () => string;
  /** The JSON log lines so far. */
  lines: () => Array<Record<string, unknown>>;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
};

/** `sync-gateway serve` as a process of its own; `built`: the production entry point on dist/ (`npm run build` first). */
export function spawnServe(env: NodeJS.ProcessEnv, options: { built?: boolean } = {}): ServeChild {
  const args = options.built ? [path.join(ROOT, 'bin', 'sync-gateway.js'), 'serve'] : [...CLI, 'serve'];
  const child = spawn(process.execPath, args, { env, cwd: ROOT });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d));
  child.stderr.on('data', (d: Buffer) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = () =>
    output.split('\n').flatMap((line) => {
      try {
        const parsed: unknown = JSON.parse(line);
        return typeof parsed === 'object' && parsed !== null ? [parsed as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
  return { child, output: () => output, lines, exited };
}

export type ServeProcess = {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
};

/** `sync-gateway serve`, resolved once it logs that it listens (see `spawnServe`). */
export function serveProcess(env: NodeJS.ProcessEnv, options: { built?: boolean } = {}): Promise<ServeProcess> {
  const serving = spawnServe(env, options);
  const { child } = serving;
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`serve exited with ${code}: ${serving.output()}`));
    const onData = () => {
      const line = serving.lines().find((l) => l.msg === 'sync-gateway listening');
      if (!line) return;
      child.stdout.off('data', onData);
      child.off('close', onExit);
      resolve({
        child,
        url: line.url as string,
        output: serving.output,
        stop: (signal = 'SIGTERM') =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('close', () => done());
            child.kill(signal);
          }),
      });
    };
    child.stdout.on('data', onData);
    child.on('close', onExit);
  });
}

/**
 * A `sync-gateway worker` process on `databaseUrl`: node itself, no wrapper, so that SIGKILL
 * reaches the worker; it delivers to loopback receivers, which the SSRF guard refuses unless
 * allowed. `exited` resolves with the signal that ended it (null for an exit of its own).
 */
export function workerProcess(
  databaseUrl: string,
  encryptionKey: Buffer,
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcess; exited: Promise<NodeJS.Signals | null> } {
  const child = spawn(process.execPath, [...CLI, 'worker'], {
    env: postgresEnv(databaseUrl, {
      ENCRYPTION_KEY: encryptionKey.toString('hex'),
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
      ...env,
    }),
    cwd: ROOT,
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  return { child, exited };
}
