import type { Worker as Thread } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { AppConfig } from '../config';
import type { EventHub } from '../events/hub';
import { startThread } from '../threads';
import type { OperationalEvent } from '../webhooks/endpoint-health';
import type { Worker } from './worker';
import { QUEUE_NOTIFIER_ID } from './queue-notify';
import { createWakeState, signalWork } from './wake-gate';

export type BackgroundWorker = Pick<Worker, 'pollIntervalMs' | 'lastClaimAt' | 'lastClaimError' | 'start' | 'stop'>;

export type WorkerThreadData = {
  config: AppConfig;
  encryptionKey: Buffer;
  /** The worker's state shared with the thread (`wake-gate.ts`): a report posts only while it sleeps. */
  wakeState: SharedArrayBuffer;
  /** The payload of this process's NOTIFYs: the thread is woken in-process for those. */
  ownNotifications: string;
};

/** Messages from the thread. */
export type WorkerThreadMessage =
  | { type: 'beat'; lastClaimAt: number | undefined; lastClaimError: string | undefined }
  | { type: 'attempts'; outcomes: Array<'completed' | 'retry' | 'failed'> }
  | { type: 'operational'; events: OperationalEvent[] }
  | { type: 'failed'; message: string };

/**
 * The delivery worker of `serve` on PostgreSQL, on a thread of its own with its own connection
 * pool: a burst of HTTP requests cannot starve deliveries of the event loop, nor deliveries the
 * requests. The thread is woken by this process's failure reports (and by NOTIFY from other
 * replicas); it reports its heartbeat for /ready, its attempts for /metrics and its operational
 * events (ADR 0022) for the event hub.
 */
export function startWorkerThread(options: {
  config: AppConfig;
  encryptionKey: Buffer;
  events: EventHub;
  logger: Logger;
  onAttempt: (outcome: 'completed' | 'retry' | 'failed') => void;
  pollIntervalMs?: number;
}): BackgroundWorker {
  let thread: Thread | undefined;
  let exited: Promise<unknown> | undefined;
  let lastClaimAt: number | undefined;
  let lastClaimError: string | undefined;
  let unsubscribe: (() => void) | undefined;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  return {
    pollIntervalMs,
    lastClaimAt: () => lastClaimAt,
    lastClaimError: () => lastClaimError,
    start() {
      if (thread) return;
      const wakeState = createWakeState();
      const state = new Int32Array(wakeState);
      const workerData: WorkerThreadData = {
        config: options.config,
        encryptionKey: options.encryptionKey,
        wakeState,
        ownNotifications: QUEUE_NOTIFIER_ID,
      };
      thread = startThread(__dirname, 'worker-thread', workerData);
      exited = new Promise((resolve) => thread!.once('exit', resolve));
      thread.on('message', (message: WorkerThreadMessage) => {
        if (message.type === 'beat') ({ lastClaimAt, lastClaimError } = message);
        else if (message.type === 'attempts') for (const outcome of message.outcomes) options.onAttempt(outcome);
        // Published here: the event hub (and its Redis clients) lives on the main thread.
        else if (message.type === 'operational') for (const event of message.events) options.events.publishOperational(event);
        else options.logger.error({ error: message.message }, 'webhook worker thread failed');
      });
      thread.on('error', (error) => options.logger.error({ err: error }, 'webhook worker thread crashed'));
      // /ready then reports the worker as not running.
      thread.on('exit', () => (lastClaimAt = undefined));
      unsubscribe = options.events.onQueueWork(() => {
        if (signalWork(state)) thread?.postMessage('wake');
      });
    },
    async stop() {
      unsubscribe?.();
      if (!thread) return;
      thread.postMessage('stop');
      await exited;
      thread = undefined;
    },
  };
}
