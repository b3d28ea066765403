import type { Worker } from 'node:worker_threads';
import {
  DriverAdapterError,
  type IsolationLevel,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
} from '@prisma/driver-adapter-utils';
import type { Logger } from 'pino';
import { startThread } from '../threads';
import type { EmbeddedRequest, EmbeddedThreadData, ThreadError, ThreadMessage } from './embedded-protocol';

/**
 * The main thread's side of the embedded store (docs/adr/0032): PGlite runs on a thread of its
 * own and this proxy forwards every statement over the thread's port, so a 10,000-row push
 * occupies that thread and never the event loop that answers /health and the polls.
 *
 * Two surfaces: a Prisma driver adapter (the same adapter as before runs in the thread; here
 * only its interface), and the few PGlite calls the store's own code makes (housekeeping,
 * backup, export, migration check).
 */

export type EmbeddedRows<T> = { rows: T[]; affectedRows?: number };

/** What the store's own code needs of PGlite; a PGlite instance fits it too. */
export type EmbeddedSql = {
  query<T>(sql: string, params?: unknown[]): Promise<EmbeddedRows<T>>;
  exec(sql: string): Promise<unknown>;
  transaction<T>(work: (tx: EmbeddedTransaction) => Promise<T>): Promise<T>;
  readonly closed: boolean;
};

export type EmbeddedTransaction = Pick<EmbeddedSql, 'query' | 'exec'> & { rollback(): Promise<void> };

export type EmbeddedThread = EmbeddedSql & {
  /** Prisma's driver adapter over the thread. */
  adapter: SqlMigrationAwareDriverAdapterFactory;
  /** A consistent gzipped tar of the data directory, taken while no statement runs (ADR 0026). */
  dumpDataDir(): Promise<Uint8Array<ArrayBuffer>>;
  /** The recycles of the PGlite instance so far (ADR 0035). */
  recycles(): RecycleStats;
  /** A heap snapshot of the store's thread (after a full collection), for memory diagnosis. */
  heapSnapshot(): Promise<NodeJS.ReadableStream>;
  close(): Promise<void>;
};

export type RecycleStats = { count: number; lastPauseMs: number };

/** A transaction with no statement for this long is rolled back by the store's thread. */
export const TRANSACTION_IDLE_MS = 30_000;

export type EmbeddedThreadOptions = {
  /** Absent: an in-memory store (tests). */
  pgDir?: string;
  fsync?: boolean;
  logger?: Logger;
  transactionIdleMs?: number;
  /** Past this much WebAssembly memory the thread recycles its PGlite instance (ADR 0035); 0 or absent: never. */
  memoryCeilingMb?: number;
  /** A store quiet for this long after work recycles its PGlite instance (ADR 0039); 0 or absent: never. */
  idleRecycleMs?: number;
  /** Tests: what counts as quiet and as work. */
  quiet?: EmbeddedThreadData['quiet'];
  /** Tests: the pre-initialised data directory for an empty pgDir (ADR 0041; the built one otherwise). */
  initialDataDir?: string;
};

const ADAPTER_NAME = 'pglite-prisma-adapter';

export async function startEmbeddedThread(options: EmbeddedThreadOptions): Promise<EmbeddedThread> {
  const workerData: EmbeddedThreadData = {
    ...(options.pgDir !== undefined ? { pgDir: options.pgDir } : {}),
    fsync: options.fsync ?? true,
    transactionIdleMs: options.transactionIdleMs ?? TRANSACTION_IDLE_MS,
    memoryCeilingBytes: (options.memoryCeilingMb ?? 0) * 1024 * 1024,
    idleRecycleMs: options.idleRecycleMs ?? 0,
    ...(options.quiet ? { quiet: options.quiet } : {}),
    ...(options.initialDataDir !== undefined ? { initialDataDir: options.initialDataDir } : {}),
  };
  const recycles: RecycleStats = { count: 0, lastPauseMs: 0 };
  const thread: Worker = startThread(__dirname, 'embedded-thread', workerData);
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  let stopped: Error | undefined;
  let closed = false;

  // Every call after the thread is gone fails as a closed connection: the request path's 503 (ADR 0016).
  const fail = (reason: Error) => {
    stopped ??= Object.assign(new DriverAdapterError({ kind: 'ConnectionClosed' }), { message: reason.message });
    for (const { reject } of pending.values()) reject(stopped);
    pending.clear();
  };
  const ready = new Promise<void>((resolve, reject) => {
    thread.on('message', (message: ThreadMessage) => {
      if (message.type === 'reply') {
        const call = pending.get(message.id);
        pending.delete(message.id);
        // The thread keeps the process alive only while an answer is awaited (as PGlite in-process did not at all).
        if (pending.size === 0) thread.unref();
        if (!call) return;
        if (message.error) call.reject(rebuild(message.error));
        else call.resolve(message.result);
      } else if (message.type === 'recycled') {
        recycles.count++;
        recycles.lastPauseMs = message.pauseMs;
        options.logger?.info(
          {
            thread: 'embedded-store',
            reason: message.reason,
            pauseMs: Math.round(message.pauseMs),
            wasmMbBefore: Math.round(message.wasmBytesBefore / 2 ** 20),
            wasmMbAfter: Math.round(message.wasmBytesAfter / 2 ** 20),
            rssMbBefore: Math.round(message.rssBytesBefore / 2 ** 20),
            rssMbCollected: Math.round(message.rssBytesCollected / 2 ** 20),
            recycles: recycles.count,
          },
          message.reason === 'idle'
            ? 'recycled the embedded store: quiet after work, its memory given back'
            : 'recycled the embedded store: its WebAssembly memory passed the ceiling',
        );
      } else if (message.type === 'ready') resolve();
      else if (message.type === 'failed') reject(new Error(message.message));
      else options.logger?.[message.level]({ ...message.fields, thread: 'embedded-store' }, message.message);
    });
    thread.once('error', (error) => {
      options.logger?.fatal({ err: error }, 'the embedded store thread crashed');
      reject(error);
      fail(error);
    });
    thread.once('exit', (code) => {
      const error = new Error(`the embedded store thread stopped (exit code ${code})`);
      reject(error);
      fail(error);
    });
  });

  const call = <T>(request: EmbeddedRequest): Promise<T> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      if (pending.size === 0) thread.ref();
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      thread.postMessage({ id, ...request });
    });
  };

  try {
    await ready;
  } catch (error) {
    await thread.terminate();
    throw error;
  }
  thread.unref();

  const sqlIn = (tx?: number): Pick<EmbeddedSql, 'query' | 'exec'> => ({
    query: <T>(sql: string, params?: unknown[]) =>
      call<EmbeddedRows<T>>({ op: 'query', sql, ...(params ? { params } : {}), ...(tx !== undefined ? { tx } : {}) }),
    exec: (sql: string) => call({ op: 'exec', sql, ...(tx !== undefined ? { tx } : {}) }),
  });

  return {
    ...sqlIn(),
    get closed() {
      return closed;
    },
    async transaction<T>(work: (tx: EmbeddedTransaction) => Promise<T>): Promise<T> {
      const tx = await call<number>({ op: 'begin' });
      let rolledBack = false;
      try {
        const result = await work({
          ...sqlIn(tx),
          rollback: async () => {
            rolledBack = true;
            await call({ op: 'rollback', tx });
          },
        });
        if (!rolledBack) await call({ op: 'commit', tx });
        return result;
      } catch (error) {
        if (!rolledBack) await call({ op: 'rollback', tx }).catch(() => undefined);
        throw error;
      }
    },
    adapter: adapterFactory(call),
    dumpDataDir: () => call<Uint8Array<ArrayBuffer>>({ op: 'dump' }),
    recycles: () => ({ ...recycles }),
    heapSnapshot: () => thread.getHeapSnapshot(),
    async close() {
      if (closed) return;
      closed = true;
      await call({ op: 'close' }).catch((error: unknown) => {
        if (error !== stopped) throw error;
      });
      fail(new Error('the embedded store is closed'));
      await thread.terminate();
    },
  };
}

type Call = <T>(request: EmbeddedRequest) => Promise<T>;

function adapterFactory(call: Call): SqlMigrationAwareDriverAdapterFactory {
  const queryable = (tx?: number) => ({
    provider: 'postgres' as const,
    adapterName: ADAPTER_NAME,
    queryRaw: (query: SqlQuery) => call<SqlResultSet>({ op: 'queryRaw', query, ...(tx !== undefined ? { tx } : {}) }),
    executeRaw: (query: SqlQuery) => call<number>({ op: 'executeRaw', query, ...(tx !== undefined ? { tx } : {}) }),
  });
  const adapter: SqlDriverAdapter = {
    ...queryable(),
    executeScript: (script: string) => call<void>({ op: 'executeScript', script }),
    async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
      const tx = await call<number>({ op: 'begin', ...(isolationLevel ? { isolationLevel } : {}) });
      return {
        ...queryable(tx),
        // As the PGlite adapter: BEGIN and COMMIT are the thread's, not queries Prisma sends.
        options: { usePhantomQuery: true },
        commit: () => call<void>({ op: 'commit', tx }),
        rollback: () => call<void>({ op: 'rollback', tx }),
      };
    },
    getConnectionInfo: () => ({ supportsRelationJoins: true }),
    dispose: () => Promise.resolve(),
  };
  return {
    provider: 'postgres',
    adapterName: ADAPTER_NAME,
    connect: () => Promise.resolve(adapter),
    connectToShadowDb: () =>
      Promise.reject(new Error('the embedded store has no shadow database; migrations are applied, not diffed, here')),
  };
}

function rebuild(error: ThreadError): Error {
  if (error.kind === 'driver') return new DriverAdapterError(error.cause as unknown as ConstructorParameters<typeof DriverAdapterError>[0]);
  return Object.assign(new Error(error.message), error.fields, { name: error.name });
}
