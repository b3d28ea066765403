import type { Worker as Thread } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { AppConfig } from '../config';
import type { EventHub } from '../events/hub';
import { startThread } from '../threads';
import type { OperationalEvent } from '../events/live-events';
import type { Worker } from './worker';
import { QUEUE_NOTIFIER_ID } from './queue-notify';

export type BackgroundWorker = Pick<Worker, 'pollIntervalMs' | 'lastClaimAt' | 'lastClaimError' | 'stop'>;

/** What the thread needs once the store is open (the embedded cluster's URL is known only then). */
export type WorkerConnection = {
  databaseUrl: string;
  encryptionKey: Buffer;
  events: EventHub;
  onAttempt: (outcome: 'completed' | 'retry' | 'failed') => void;
};

/** A worker thread spawned ahead of the store: its modules load while the store opens; `start` lets it claim. */
export type PendingWorkerThread = BackgroundWorker & { start(connection: WorkerConnection): void };

export type WorkerThreadData = {
  config: AppConfig;
  /** The payload of this process's NOTIFYs: the thread is woken in-process for those. */
  ownNotifications: string;
};

/** Messages to the thread: its store once open, wake-ups, and the stop. */
export type WorkerThreadCommand = { type: 'start'; databaseUrl: string; encryptionKey: Uint8Array } | 'wake' | 'stop';

/** Messages from the thread. */
export type WorkerThreadMessage =
  | { type: 'beat'; lastClaimAt: number | undefined; lastClaimError: string | undefined }
  | { type: 'attempts'; outcomes: Array<'completed' | 'retry' | 'failed'> }
  | { type: 'operational'; events: OperationalEvent[] }
  | { type: 'failed'; message: string };

/**
 * The delivery worker of `serve`, on a thread of its own with its own connection pool: a burst of
 * HTTP requests cannot starve deliveries of the event loop, nor deliveries the requests. The
 * thread is woken by this process's failure reports (and by NOTIFY from other replicas); it
 * reports its heartbeat for /ready, its attempts for /metrics and its operational events (ADR
 * 0022) for the event hub.
 *
 * The thread is spawned at once, before the store opens: loading its modules takes about a second
 * on a busy machine, and /ready waits for its first claim, so loading them on the other core while
 * this thread starts the store and builds the app takes that second off a restart (issue 29). It
 * touches no database until `start` hands it the store's URL.
 */
export function spawnWorkerThread(options: { config: AppConfig; logger: Logger; pollIntervalMs?: number }): PendingWorkerThread {
  let lastClaimAt: number | undefined;
  let lastClaimError: string | undefined;
  // Set by `start`: no attempt or operational event comes before it.
  let connection: Pick<WorkerConnection, 'events' | 'onAttempt'> | undefined;
  let unsubscribe: (() => void) | undefined;
  const workerData: WorkerThreadData = { config: options.config, ownNotifications: QUEUE_NOTIFIER_ID };
  const thread: Thread = startThread(__dirname, 'worker-thread', workerData);
  let running = true;
  const exited = new Promise<unknown>((resolve) => thread.once('exit', resolve));
  const post = (command: WorkerThreadCommand) => thread.postMessage(command);
  thread.on('message', (message: WorkerThreadMessage) => {
    if (message.type === 'beat') ({ lastClaimAt, lastClaimError } = message);
    else if (message.type === 'attempts') for (const outcome of message.outcomes) connection?.onAttempt(outcome);
    // Published here: the event hub (and its Redis clients) lives on the main thread.
    else if (message.type === 'operational') for (const event of message.events) connection?.events.publishOperational(event);
    else options.logger.error({ error: message.message }, 'webhook worker thread failed');
  });
  thread.on('error', (error) => options.logger.error({ err: error }, 'webhook worker thread crashed'));
  // /ready then reports the worker as not running.
  thread.on('exit', () => {
    running = false;
    lastClaimAt = undefined;
  });
  return {
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    lastClaimAt: () => lastClaimAt,
    lastClaimError: () => lastClaimError,
    start(store) {
      if (!running || connection) return;
      connection = store;
      post({ type: 'start', databaseUrl: store.databaseUrl, encryptionKey: store.encryptionKey });
      unsubscribe = store.events.onQueueWork(() => post('wake'));
    },
    async stop() {
      unsubscribe?.();
      if (running) post('stop');
      await exited;
    },
  };
}
