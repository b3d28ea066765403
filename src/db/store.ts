import { PrismaPg } from '@prisma/adapter-pg';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { PrismaClient } from '../generated/prisma/client';
import { DataDirLockedError, lockDataDir } from './data-dir-lock';
import { clusterDirectory, runningClusterUrl, startEmbeddedCluster, type EmbeddedCluster } from './embedded-postgres';
import { migrateInThread, migrationsUpToDate } from './migrations';
import {
  DEFAULT_POOL_SETTINGS,
  describeLocation,
  PatientPool,
  postgresPoolConfig,
  waitForPostgres,
  type PoolSettings,
} from './postgres-pool';

/**
 * The one storage port (ADR 0042): a PostgreSQL database, reached through one pg pool that Prisma's
 * adapter and the hot statements share. It is either the server DATABASE_URL names, or the cluster
 * the service runs itself in DATA_DIR; past `openStore` nothing tells them apart but `backend`,
 * which only the start-up banner, /health and the CLI's wording read.
 */
export type Backend = 'embedded' | 'postgresql';

const POOL_END_MS = 3_000;

export type Store = {
  prisma: PrismaClient;
  /** The pool beneath Prisma's adapter: transactions of pushes and named prepared statements (ADR 0033). One connection budget. */
  sql: Pool;
  backend: Backend;
  /** Connection string, credentials included (the worker thread opens its own pool with it): never log it. */
  url: string;
  /** Where the data lives, without credentials: safe to log. */
  location: string;
  /** The embedded cluster's directory, when this process runs it: size gauges. */
  clusterDir?: string;
  /** Applies pending migrations (and, on the embedded store, runs `importLegacyStore`); returns the names applied. */
  migrate(): Promise<string[]>;
  close(): Promise<void>;
};

/** What services take: Prisma for the models, the pool for transactions and prepared statements. */
export type StoreClients = Pick<Store, 'prisma' | 'sql'>;

export type StoreOptions = {
  /** PostgreSQL when set, the embedded cluster in dataDir otherwise. */
  databaseUrl?: string | undefined;
  dataDir: string;
  logger: Logger;
  /** The request path's pool, and how long start-up waits for a database that refuses. */
  pool?: PoolSettings & { connectTimeoutMs?: number };
  /** Embedded store only: `synchronous_commit` (default on: a write returns once its WAL is flushed). */
  embeddedFsync?: boolean;
  /**
   * Embedded store only (the CLI): when a running server holds the data directory, connect to its
   * cluster instead of refusing. Such a store never stops the cluster it did not start.
   */
  attachToRunningServer?: boolean;
  /**
   * Embedded store only: run after the migrations, when this process started the cluster, to bring
   * in data an earlier release left in DATA_DIR (the PGlite store of 0.1: src/backups/pglite-import.ts).
   */
  importLegacyStore?: (options: { dataDir: string; targetUrl: string; logger: Logger }) => Promise<unknown>;
  /**
   * Work of the caller's that needs no database (`serve` loads its modules): run while the embedded
   * cluster starts (or the server is first reached), whose waiting would otherwise be idle time.
   */
  whileStarting?: () => Promise<void>;
};

export async function openStore(options: StoreOptions): Promise<Store> {
  return options.databaseUrl ? openOnServer(options.databaseUrl, options) : openEmbedded(options);
}

async function openEmbedded(options: StoreOptions): Promise<Store> {
  const { dataDir, logger } = options;
  let release: () => Promise<void>;
  try {
    release = await lockDataDir(
      dataDir,
      (error) => {
        // Someone removed or stole the lock: another process may be starting the cluster.
        logger.fatal({ err: error }, 'lost the data directory lock; stopping');
        process.exit(70);
      },
      logger,
    );
  } catch (error) {
    if (!(error instanceof DataDirLockedError) || !options.attachToRunningServer) throw error;
    return attachToRunningCluster(error, options);
  }
  let cluster: EmbeddedCluster | undefined;
  let opened: Store | undefined;
  try {
    cluster = await startEmbeddedCluster({
      dataDir,
      logger,
      synchronousCommit: options.embeddedFsync ?? true,
      // While the postmaster starts: the pool and Prisma (connecting to nothing yet), whose query
      // compiler (WebAssembly) then loads now rather than in the first request, and the caller's work.
      whileStarting: async (url) => {
        opened = storeOnUrl(url, 'embedded', options);
        await Promise.all([opened.prisma.$connect(), options.whileStarting?.()]);
      },
    });
    const store = opened!;
    const started = cluster;
    return {
      ...store,
      location: cluster.pgDir,
      clusterDir: cluster.pgDir,
      async migrate() {
        const applied = await store.migrate();
        // An earlier release's store moves in once, after the schema is this build's.
        await options.importLegacyStore?.({ dataDir, targetUrl: store.url, logger });
        return applied;
      },
      async close() {
        await store.close();
        await started.stop();
        await release();
      },
    };
  } catch (error) {
    await opened?.close();
    await cluster?.stop().catch(() => undefined);
    await release();
    throw error;
  }
}

/**
 * The CLI while a server holds DATA_DIR: its cluster, once that accepts connections. Until then
 * (the holder is still starting, or is a CLI command that started no cluster) the lock error
 * stands, and the CLI waits and tries again.
 */
async function attachToRunningCluster(locked: DataDirLockedError, options: StoreOptions): Promise<Store> {
  const url = await runningClusterUrl(options.dataDir);
  if (!url) throw locked;
  const attached = storeOnUrl(url, 'embedded', options);
  try {
    await attached.sql.query('SELECT 1');
  } catch {
    await attached.close();
    throw locked;
  }
  return { ...attached, location: `${clusterDirectory(options.dataDir)} (the running server's cluster)` };
}

async function openOnServer(databaseUrl: string, options: StoreOptions): Promise<Store> {
  const store = storeOnUrl(databaseUrl, 'postgresql', options);
  try {
    await Promise.all([
      // A replica started while the database is down or full waits instead of exiting.
      waitForPostgres(databaseUrl, { timeoutMs: options.pool?.connectTimeoutMs ?? 0, logger: options.logger }),
      store.prisma.$connect(),
      options.whileStarting?.(),
    ]);
  } catch (error) {
    await store.close();
    throw error;
  }
  const { host, port, database } = describeLocation(databaseUrl);
  return { ...store, location: `${host}:${port}/${database}` };
}

/** The pool and Prisma on `url`; nothing connects until the first statement. */
function storeOnUrl(url: string, backend: Backend, options: StoreOptions): Store {
  const { logger } = options;
  const pool = new PatientPool(postgresPoolConfig(url, options.pool ?? DEFAULT_POOL_SETTINGS, 'sync-gateway'));
  // An idle connection that dies (restart, terminated backend) is dropped from the pool; not fatal.
  pool.on('error', (error) => logger.warn({ cause: error.message }, 'idle database connection lost'));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    sql: pool,
    backend,
    url,
    location: backend,
    migrate: async () => {
      // Most starts have nothing to apply: then the schema engine (WebAssembly, ~50 MB) never loads.
      if (await migrationsUpToDate(pool)) return [];
      const applied = await migrateInThread(url);
      if (applied.length > 0) logger.info({ applied }, 'applied database migrations');
      return applied;
    },
    async close() {
      await prisma.$disconnect();
      // A connection still checked out (a request cut at the shutdown grace) would hold end() open;
      // on the embedded store the cluster's fast shutdown that follows ends its session anyway.
      // Unref'd: once the pool has ended, the ceiling must not keep the process (a CLI command) alive.
      await Promise.race([pool.end().catch(() => undefined), sleep(POOL_END_MS, undefined, { ref: false })]);
    },
  };
}
