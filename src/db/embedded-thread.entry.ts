/**
 * The embedded store's thread (started by embedded-thread.ts; docs/adr/0032): PGlite with its
 * durable file system and Prisma's PGlite adapter run here, so that no statement runs on the
 * event loop that answers HTTP. Requests arrive in order and PGlite queues them itself, one
 * statement at a time, behind any open transaction, exactly as it did on the main thread.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { carriesBulkParameter, releaseAdapterParameters } from './adapter-debug-history';
import { fullCollection } from './collect-garbage';
import { embeddedStoreOpener, type EmbeddedStoreOpener } from './durable-nodefs';
import {
  describeError,
  type EmbeddedRequest,
  type EmbeddedThreadData,
  type RequestEnvelope,
  type ThreadMessage,
} from './embedded-protocol';
import { QUIET_DEFAULTS, watchForQuiet } from './embedded-quiet';
import { initialiseDataDir, type InitialiseLogger } from './initial-data-dir';

const port = parentPort!;
const post = (message: ThreadMessage, transfer: Transferable[] = []) => port.postMessage(message, transfer as never);
const data = workerData as EmbeddedThreadData;

const forward =
  (level: 'debug' | 'info' | 'warn' | 'error') =>
  (fieldsOrMessage: unknown, message?: string): void => {
    if (typeof fieldsOrMessage === 'string') return post({ type: 'log', level, message: fieldsOrMessage });
    const fields = Object.fromEntries(
      Object.entries(fieldsOrMessage as Record<string, unknown>).map(([k, v]) => [k, v instanceof Error ? { message: v.message } : v]),
    );
    post({ type: 'log', level, message: message ?? '', fields });
  };
const logger: InitialiseLogger = { warn: forward('warn'), info: forward('info') };

/** The isolation levels Prisma may ask for; anything else never reaches the SQL text. */
const ISOLATION_LEVELS = new Set(['READ UNCOMMITTED', 'READ COMMITTED', 'REPEATABLE READ', 'SERIALIZABLE']);

type OpenTransaction = {
  tx: Transaction;
  adapter: SqlDriverAdapter;
  /** Lets the transaction callback return: PGlite then commits (or skips COMMIT after a rollback). */
  finish(): void;
  done: Promise<unknown>;
  /** Statements in flight: the idle watchdog never rolls back under a running statement. */
  busy: number;
  lastUsed: number;
  /** Set once the thread rolled it back on its own; later statements fail with this. */
  abandoned?: string;
};

/**
 * The PGlite adapter logs each query with its arguments into Prisma's debug history, which keeps
 * the last 100 alive in this thread's heap: after a bulk list (1 to 10 MB of JSON) it is evicted.
 */
async function withBulkReleased<T>(query: { args: unknown[] }, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    if (carriesBulkParameter(query.args)) releaseAdapterParameters();
  }
}

async function main(): Promise<void> {
  const collect = fullCollection();
  // An empty data directory gets the shipped pre-initialised one (ADR 0041). The instance that
  // loaded it is closed already: collected before the store's own instance opens, and once more
  // after, as for the reopen below (V8 returns part of it only then).
  const initialised =
    data.pgDir !== undefined && (await initialiseDataDir(data.pgDir, { fsync: data.fsync, logger, source: data.initialDataDir }));
  if (initialised) collect();
  const opener: EmbeddedStoreOpener = data.pgDir
    ? await embeddedStoreOpener(data.pgDir, { fsync: data.fsync, logger })
    : { open: () => PGlite.create(), releaseClosed: () => undefined };
  const connect = async (pglite: PGlite) => ({ pglite, adapter: await new PrismaPGlite(pglite).connect() });
  // A data directory still without PG_VERSION is created by this open (initdb): no pre-initialised one.
  const fresh = data.pgDir !== undefined && !existsSync(path.join(data.pgDir, 'PG_VERSION'));
  // Replaced by a fresh instance at each recycle (below), and absent inside it while no call runs:
  // nothing else may hold the old one.
  let instance: { pglite: PGlite; adapter: SqlDriverAdapter } | undefined = await connect(await opener.open());
  const live = () => {
    if (!instance) throw new Error('the embedded store is being reopened');
    return instance;
  };
  /**
   * Closes the instance and opens a fresh one on the same directory. The closed one's memory is
   * returned before the fresh one takes its own, not after: nothing holds it (no call runs, no
   * transaction is open, the file system let go of it). Answers the RSS right after that collection.
   */
  const reopen = async (): Promise<number> => {
    await live().pglite.close();
    instance = undefined;
    opener.releaseClosed();
    collect();
    const rssBytesCollected = process.memoryUsage.rss();
    instance = await connect(await opener.open());
    return rssBytesCollected;
  };
  // The instance that ran initdb keeps 300–400 MB resident that no collection returns while it
  // lives (RSS 580–750 MB against 200–280 after a plain open): replaced at once, before any call,
  // and collected once more after the reopen, which returned the rest in every start measured.
  if (fresh) await reopen();
  if (fresh || initialised) collect();
  const transactions = new Map<number, OpenTransaction>();
  let nextTransaction = 1;

  const begin = (isolationLevel?: string) =>
    new Promise<number>((resolve, reject) => {
      if (isolationLevel !== undefined && !ISOLATION_LEVELS.has(isolationLevel)) {
        reject(new Error(`unsupported isolation level ${isolationLevel}`));
        return;
      }
      let finish!: () => void;
      const finished = new Promise<void>((r) => (finish = r));
      const done = live().pglite.transaction(async (tx) => {
        if (isolationLevel) await tx.exec(`SET TRANSACTION ISOLATION LEVEL ${isolationLevel}`);
        const id = nextTransaction++;
        // The adapter's statements on `tx`: its argument mapping, parsers and error mapping, unchanged.
        const txAdapter = await new PrismaPGlite(tx as unknown as PGlite).connect();
        transactions.set(id, { tx, adapter: txAdapter, finish, done, busy: 0, lastUsed: Date.now() });
        resolve(id);
        await finished;
      });
      done.catch(reject); // BEGIN failed: nothing was resolved yet
    });

  const openEntry = (id: number) => {
    const entry = transactions.get(id);
    if (!entry) throw new Error(`transaction ${id} is not open`);
    if (entry.abandoned) throw new Error(entry.abandoned);
    return entry;
  };

  const inTransaction = async <T>(id: number, work: (entry: OpenTransaction) => Promise<T>): Promise<T> => {
    const entry = openEntry(id);
    entry.busy++;
    try {
      return await work(entry);
    } finally {
      entry.busy--;
      entry.lastUsed = Date.now();
    }
  };

  const end = async (id: number, how: 'commit' | 'rollback') => {
    const entry = transactions.get(id);
    if (!entry) throw new Error(`transaction ${id} is not open`);
    transactions.delete(id);
    if (entry.abandoned) {
      if (how === 'commit') throw new Error(entry.abandoned);
      return;
    }
    try {
      if (how === 'rollback' && !entry.tx.closed) await entry.tx.rollback();
    } finally {
      entry.finish();
    }
    await entry.done;
  };

  // A transaction the main side stopped talking to would hold PGlite (one transaction at a time) forever.
  const watchdog = setInterval(
    () => {
      const now = Date.now();
      for (const [id, entry] of transactions) {
        if (entry.abandoned || entry.busy > 0 || now - entry.lastUsed < data.transactionIdleMs) continue;
        entry.abandoned = `transaction ${id} was rolled back: no statement for ${data.transactionIdleMs} ms`;
        logger.warn({ transaction: id }, entry.abandoned);
        void entry.tx
          .rollback()
          .catch(() => undefined)
          .finally(() => entry.finish());
      }
    },
    Math.max(50, Math.min(1_000, data.transactionIdleMs / 4)),
  );

  const handle = async (request: EmbeddedRequest): Promise<unknown> => {
    const { pglite, adapter } = live();
    switch (request.op) {
      case 'query': {
        const options = { rowMode: request.rowMode ?? 'object' } as const;
        return request.tx === undefined
          ? pglite.query(request.sql, request.params, options)
          : inTransaction(request.tx, (t) => t.tx.query(request.sql, request.params, options));
      }
      case 'exec':
        await (request.tx === undefined ? pglite.exec(request.sql) : inTransaction(request.tx, (t) => t.tx.exec(request.sql)));
        return undefined;
      case 'begin':
        return begin(request.isolationLevel);
      case 'commit':
      case 'rollback':
        return end(request.tx, request.op);
      case 'queryRaw':
        return withBulkReleased(request.query, () =>
          request.tx === undefined ? adapter.queryRaw(request.query) : inTransaction(request.tx, (t) => t.adapter.queryRaw(request.query)),
        );
      case 'executeRaw':
        return withBulkReleased(request.query, () =>
          request.tx === undefined
            ? adapter.executeRaw(request.query)
            : inTransaction(request.tx, (t) => t.adapter.executeRaw(request.query)),
        );
      case 'executeScript':
        // Awaited here (the adapter's own executeScript does not wait for the script).
        await pglite.exec(request.script);
        return undefined;
      case 'dump': {
        // Inside PGlite's exclusive section: no statement runs while the files are read (ADR 0026).
        const blob = await pglite.runExclusive(() => pglite.dumpDataDir('gzip'));
        return new Uint8Array(await blob.arrayBuffer());
      }
      case 'close':
        clearInterval(watchdog);
        quiet.stop();
        for (const [id] of transactions) await end(id, 'rollback').catch(() => undefined);
        await pglite.close();
        return undefined;
    }
  };

  /*
   * The recycle (ADR 0035): PGlite's WebAssembly memory grows and never shrinks, and is only given
   * back when the instance is dropped. Past the ceiling or once quiet after work (ADR 0039), and
   * only between calls (none running, no transaction open), the instance is checkpointed, closed and
   * replaced by a fresh one on the same directory; calls that arrive meanwhile are queued and run
   * after it, in their order. An in-memory store (tests) would lose its data: it is never recycled.
   */
  let running = 0;
  let closing = false;
  let queued: RequestEnvelope[] | undefined;

  const mayRecycle = () =>
    data.pgDir !== undefined && running === 0 && transactions.size === 0 && !closing && queued === undefined && instance !== undefined;
  const pastCeiling = () =>
    data.memoryCeilingBytes > 0 && instance !== undefined && instance.pglite.Module.HEAP8.length > data.memoryCeilingBytes;
  // Quiet after work: the memory the load left is given back while nobody waits (ADR 0039).
  const quiet = watchForQuiet({ ...QUIET_DEFAULTS, windowMs: data.idleRecycleMs, ...data.quiet }, () => {
    if (mayRecycle()) void recycle('idle');
  });

  const recycle = async (reason: 'ceiling' | 'idle') => {
    queued = [];
    const started = performance.now();
    const wasmBytesBefore = live().pglite.Module.HEAP8.length;
    try {
      // A failed CHECKPOINT leaves the instance as it was: no recycle this time.
      await live().pglite.exec('CHECKPOINT');
    } catch (error) {
      logger.warn({ err: error }, 'could not checkpoint the embedded store; it is not recycled this time');
      return resume();
    }
    const rssBytesBefore = process.memoryUsage.rss();
    let rssBytesCollected = rssBytesBefore;
    try {
      rssBytesCollected = await reopen();
    } catch (error) {
      // The store is closed and could not be reopened: every call would fail, so the thread stops
      // and the main side answers 503 as for a crashed thread (ADR 0016).
      forward('error')({ err: error }, 'could not reopen the embedded store after a recycle; stopping its thread');
      process.exit(1);
    }
    const pauseMs = performance.now() - started;
    const wasmBytesAfter = live().pglite.Module.HEAP8.length;
    quiet.opened();
    post({ type: 'recycled', reason, pauseMs, wasmBytesBefore, wasmBytesAfter, rssBytesBefore, rssBytesCollected });
    resume();
  };

  const resume = () => {
    const waiting = queued ?? [];
    queued = undefined;
    for (const request of waiting) dispatch(request);
  };

  const dispatch = (request: RequestEnvelope) => {
    if (queued) {
      queued.push(request);
      return;
    }
    if (request.op === 'close') closing = true;
    const reply = (answer: Omit<Extract<ThreadMessage, { type: 'reply' }>, 'type' | 'id'>, transfer: Transferable[] = []) => {
      try {
        post({ type: 'reply', id: request.id, ...answer }, transfer);
      } catch (error) {
        // A value structured clone cannot carry: the caller gets an error, the thread lives on.
        post({ type: 'reply', id: request.id, error: describeError(error) });
      }
    };
    running++;
    quiet.callStarted();
    // Called synchronously: PGlite's own queue sees the calls in the order they arrived.
    handle(request)
      .finally(() => {
        running--;
        quiet.callEnded();
        if (mayRecycle() && pastCeiling()) void recycle('ceiling');
      })
      .then(
        (result) => reply({ result }, result instanceof Uint8Array ? [result.buffer] : []),
        (error: unknown) => reply({ error: describeError(error) }),
      );
  };

  port.on('message', dispatch);
  post({ type: 'ready' });
}

main().catch((error: unknown) => {
  post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
});
