import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { Pool } from 'pg';
import type { Logger } from 'pino';
import { PrismaClient } from '../generated/prisma/client';
import { lockDataDir } from './data-dir-lock';
import { startEmbeddedThread, type EmbeddedThread, type EmbeddedThreadOptions } from './embedded-thread';
import { createHousekeeping, type Housekeeping, type HousekeepingOptions } from './housekeeping';
import { applyMigrations } from './migrator';
import { migrationsUpToDate } from './migrations-up-to-date';
import { attachPool } from './pg-transaction';
import { DEFAULT_PUSH_CHUNK_RECORDS, setPushChunkRecords } from '../changes/push-chunks';
import { startThread } from '../threads';
import { DEFAULT_POOL_SETTINGS, postgresPoolConfig, waitForPostgres, type PoolSettings } from './postgres-pool';

export type Backend = 'pglite' | 'postgresql';

export type Database = {
  prisma: PrismaClient;
  backend: Backend;
  /** Where the data lives, without credentials: safe to log. */
  location: string;
  migrate(): Promise<string[]>;
  close(): Promise<void>;
  /**
   * PostgreSQL only: the pool beneath Prisma's adapter, for hot statements run as named prepared
   * statements (ADR 0033). Shared with Prisma, so it is one connection budget.
   */
  sql?: Pool;
  /** The embedded store itself (pglite backend only): backups, housekeeping, size gauges. */
  embedded?: EmbeddedStore;
};

export type EmbeddedStore = {
  /** PGlite, running on a thread of its own (ADR 0032): statements, transactions, dumps. */
  pglite: EmbeddedThread;
  /** The Postgres data directory (DATA_DIR/pglite). */
  pgDir: string;
  housekeeping: Housekeeping;
};

export type DatabaseOptions = {
  /** PostgreSQL when set, embedded PGlite under dataDir otherwise. */
  databaseUrl?: string | undefined;
  dataDir: string;
  logger: Logger;
  /** PostgreSQL: the request path's pool, and how long start-up waits for a database that refuses. */
  pool?: PoolSettings & { connectTimeoutMs?: number };
  /** Embedded store only: sync the WAL before a write returns (default true). */
  embeddedFsync?: boolean;
  /** Embedded store only: WebAssembly memory (MB) past which PGlite is recycled (ADR 0035); 0 or absent: never. */
  embeddedMemoryCeilingMb?: number;
  /** Embedded store only: recycle PGlite once quiet for this long after work (ADR 0039); 0 or absent: never. */
  embeddedIdleRecycleMs?: number;
  /** Embedded store only: records per committed chunk of a large push (ADR 0040); 0: one transaction. Default 500. */
  embeddedPushChunkRecords?: number;
  /** Tests: what counts as quiet and as work for that recycle. */
  embeddedQuiet?: EmbeddedThreadOptions['quiet'];
  /** Embedded store only: intervals and thresholds of VACUUM and CHECKPOINT (tests shorten them). */
  housekeeping?: HousekeepingOptions;
};

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options.logger, options.pool) : openPglite(options);
}

async function openPglite(options: DatabaseOptions): Promise<Database> {
  const { dataDir, logger } = options;
  const release = await lockDataDir(
    dataDir,
    (error) => {
      // Someone removed or stole the lock: keeping on writing could corrupt the store.
      logger.fatal({ err: error }, 'lost the data directory lock; stopping');
      process.exit(70);
    },
    logger,
  );
  try {
    const pgDir = path.join(dataDir, 'pglite');
    // Off the event loop: every statement (and the WAL's fsync) runs in the store's thread.
    const pglite = await startEmbeddedThread({
      pgDir,
      fsync: options.embeddedFsync ?? true,
      logger,
      ...(options.embeddedMemoryCeilingMb !== undefined ? { memoryCeilingMb: options.embeddedMemoryCeilingMb } : {}),
      ...(options.embeddedIdleRecycleMs !== undefined ? { idleRecycleMs: options.embeddedIdleRecycleMs } : {}),
      ...(options.embeddedQuiet ? { quiet: options.embeddedQuiet } : {}),
    });
    const adapter = pglite.adapter;
    const prisma = new PrismaClient({ adapter });
    setPushChunkRecords(prisma, options.embeddedPushChunkRecords ?? DEFAULT_PUSH_CHUNK_RECORDS);
    const housekeeping = createHousekeeping(pglite, { logger, ...options.housekeeping });
    housekeeping.start();
    return {
      prisma,
      backend: 'pglite',
      location: pgDir,
      embedded: { pglite, pgDir, housekeeping },
      migrate: async () => ((await migrationsUpToDate(pglite)) ? [] : runMigrations(adapter, logger)),
      async close() {
        // The last CHECKPOINT, so that the next start replays no WAL.
        await housekeeping.stop();
        await prisma.$disconnect();
        await pglite.close();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}

async function openPostgres(databaseUrl: string, logger: Logger, pool: DatabaseOptions['pool'] = DEFAULT_POOL_SETTINGS): Promise<Database> {
  // A replica started while the database is down or full waits instead of exiting.
  await waitForPostgres(databaseUrl, { timeoutMs: pool.connectTimeoutMs ?? 0, logger });
  const pgPool = new Pool(postgresPoolConfig(databaseUrl, pool, 'sync-gateway'));
  // An idle connection that dies (restart, terminated backend) is dropped from the pool; not fatal.
  pgPool.on('error', (error) => logger.warn({ cause: error.message }, 'idle database connection lost'));
  const adapter = new PrismaPg(pgPool);
  const prisma = new PrismaClient({ adapter });
  // Pushes run their transactions on this pool directly (src/db/pg-transaction.ts).
  attachPool(prisma, pgPool);
  const url = new URL(databaseUrl);
  return {
    prisma,
    backend: 'postgresql',
    sql: pgPool,
    location: `${url.hostname}:${url.port || 5432}${url.pathname}`,
    migrate: async () => {
      const applied = await migrateInThread(databaseUrl);
      if (applied.length > 0) logger.info({ applied }, 'applied database migrations');
      return applied;
    },
    async close() {
      await prisma.$disconnect();
      await pgPool.end().catch(() => undefined);
    },
  };
}

function migrateInThread(databaseUrl: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const thread = startThread(__dirname, 'migrate-thread', { databaseUrl });
    thread.once('message', (result: { applied?: string[]; error?: string }) =>
      result.error !== undefined ? reject(new Error(result.error)) : resolve(result.applied ?? []),
    );
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the migration thread exited with ${code}`)));
  });
}

/** The engine never disposes its adapter, so the migration pool is ours to end. */
export async function migratePostgres(databaseUrl: string, logger?: Logger): Promise<string[]> {
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  try {
    return await runMigrations(new PrismaPg(pool), logger);
  } finally {
    await pool.end();
  }
}

async function runMigrations(adapter: SqlMigrationAwareDriverAdapterFactory, logger?: Logger): Promise<string[]> {
  const applied = await applyMigrations(adapter, (line) => logger?.debug({ engine: line }, 'schema engine'));
  if (applied.length > 0) logger?.info({ applied }, 'applied database migrations');
  return applied;
}
