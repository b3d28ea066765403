import type { Logger } from 'pino';
import { describeDatabaseError } from '../errors/database-errors';
import type { EventHub } from '../events/hub';
import type { SecretBox } from '../deliveries/secret-box';
import type { OperationalEvent } from '../events/live-events';
import { DEFAULT_DISABLE_AFTER_HOURS } from '../deliveries/endpoint-health';
import { createItemAttempt } from './attempt-item';
import { listenForQueueWork, type QueueListener } from './queue-listener';
import { pruneExpired, startRetentionRuns, type PruneResult, type RetentionRuns, type RetentionSettings } from './retention';
import { createLeaseBook } from './lease-book';
import { createResultWriter } from './result-writer';
import type { ClaimedItem } from './sql/claim-due-items';
import type { QueueDatabase } from './sql/queue-database';
import type { AttemptResult } from './sql/record-results';

export type WorkerOptions = {
  /** Where its statements run: the Prisma client, or in its thread a pg pool (`queueDatabaseOverPg`). */
  database: QueueDatabase;
  secrets: SecretBox;
  logger: Logger;
  /** Wake-ups when work is queued in this process. */
  events?: Pick<EventHub, 'onQueueWork'> | undefined;
  /** With PostgreSQL: LISTEN for work enqueued by other replicas. */
  databaseUrl?: string | undefined;
  /** The payload of this process's own NOTIFYs (`QUEUE_NOTIFIER_ID`), which `events` has signalled already. */
  ownNotifications?: string | undefined;
  /** Injected in tests to walk through the schedule without sleeping. */
  clock?: (() => Date) | undefined;
  /** Most items claimed at once. */
  batchSize?: number | undefined;
  /** Most deliveries in flight at once; a slow receiver holds one slot, not the queue. */
  concurrency?: number | undefined;
  pollIntervalMs?: number | undefined;
  /**
   * A claimed item whose worker died is reclaimed after this. A live worker renews the leases of
   * the items it holds every third of it, so a delivery may take longer than the lease.
   */
  leaseMs?: number | undefined;
  /** How long results (kept in memory) are retried while the database is unavailable. */
  resultRetryMs?: number | undefined;
  timeoutMs?: number | undefined;
  /** Called after every successful claim (the worker thread reports its first one at once). */
  onClaim?: (() => void) | undefined;
  /** Counts attempts by outcome (Prometheus). */
  onAttempt?: ((outcome: 'completed' | 'retry' | 'failed') => void) | undefined;
  /** A configuration failing this long without a success is disabled (WEBHOOK_DISABLE_AFTER_HOURS); 0: never. */
  disableAfterMs?: number | undefined;
  /** Items abandoned or recovered, configurations disabled: for the `operationalEvents` subscription. */
  onOperationalEvents?: ((events: OperationalEvent[]) => void) | undefined;
  /**
   * Work that queues items itself (change webhooks, ADR 0047): run before each claim, so that a
   * batch queued now is claimed in the same round. Its failure is logged and tried next round.
   */
  produce?: (() => Promise<number>) | undefined;
  /**
   * Runs for an item answered 2xx before its result is recorded (a change batch's acknowledgement).
   * If it throws, the result is not recorded: the lease runs out and the item is attempted again,
   * with the same webhook-id.
   */
  beforeCompleted?: ((item: ClaimedItem) => Promise<void>) | undefined;
  /** Prunes finished records while running (ADR 0021); without it nothing is pruned. */
  retention?: RetentionSettings | undefined;
};

/** Short enough that a dead worker's deliveries are taken over within seconds; renewed while alive. */
export const DEFAULT_LEASE_MS = 10_000;

export type Worker = {
  pollIntervalMs: number;
  /** When a claim last succeeded (epoch ms), even an empty one: /ready reports a worker that cannot claim. */
  lastClaimAt(): number | undefined;
  /** Why the last claim failed, if it did (a code and a reason, no host). */
  lastClaimError(): string | undefined;
  start(): void;
  stop(): Promise<void>;
  /** Claims and delivers one batch of due items; returns how many it handled. */
  runOnce(): Promise<number>;
  /** One retention run at the worker's clock (what the running worker does every `retention.intervalMs`). */
  prune(): Promise<PruneResult>;
};

/**
 * Delivers queued webhooks. Any number of workers (threads of one process or replicas on one
 * PostgreSQL) share the queue: due items are claimed with FOR UPDATE SKIP LOCKED under a lease,
 * and an attempt's result is written only while the lease is still this worker's. Deliveries run
 * as a pipeline: up to `concurrency` at once, freed slots claimed again at once, results written
 * in batches. Three parts: this claim loop, the lease book (lease-book.ts: claims, the heartbeat)
 * and the result writer (result-writer.ts: batches, outages).
 */
export function createWorker(options: WorkerOptions): Worker {
  const { database, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const batchSize = options.batchSize ?? 100;
  const concurrency = Math.max(options.concurrency ?? 64, batchSize);
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const leases = createLeaseBook({ database, clock, leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS, logger });
  /** Completed items whose result is not written yet: once it is, `produce` may queue what follows them. */
  const producedDone = new Set<number>();
  const results = createResultWriter({
    database,
    leases,
    clock,
    disableAfterMs: options.disableAfterMs ?? DEFAULT_DISABLE_AFTER_HOURS * 3_600_000,
    resultRetryMs: options.resultRetryMs ?? 10_000,
    isRunning: () => running,
    logger,
    onAttempt: options.onAttempt,
    onOperationalEvents: options.onOperationalEvents,
    onWritten(written) {
      // A push channel's batch is done: its next one may be queued at once (ADR 0047).
      let batchDone = false;
      for (const r of written) if (producedDone.delete(r.id)) batchDone = true;
      if (batchDone) wake();
    },
  });
  const attemptItem = createItemAttempt({ secrets: options.secrets, clock, timeoutMs: options.timeoutMs });
  const attempt = async (item: ClaimedItem, token: string): Promise<AttemptResult> => {
    const result = await attemptItem(item, token);
    if (result.status === 'completed' && options.beforeCompleted) {
      await options.beforeCompleted(item);
      producedDone.add(item.id);
    }
    return result;
  };

  let running = false;
  let lastClaimAt: number | undefined;
  let lastClaimError: string | undefined;
  let loop: Promise<void> | undefined;
  // A wake-up during a claim must not be lost: it is remembered and the next wait is skipped.
  let signalled = false;
  let stopWaiting: (() => void) | undefined;
  const wake = () => {
    signalled = true;
    stopWaiting?.();
  };
  let unsubscribe: (() => void) | undefined;
  let listener: QueueListener | undefined;
  const inFlight = new Set<Promise<void>>();
  let retentionRuns: RetentionRuns | undefined;

  function prune(): Promise<PruneResult> {
    const retention = options.retention;
    if (!retention) return Promise.resolve({ completedItems: 0, resolvedFailures: 0, finished: true });
    return pruneExpired(database, retention, { now: clock(), batchSize: retention.batchSize, timeLimitMs: retention.timeLimitMs });
  }

  /** Queues what `produce` has due; logged, never thrown: deliveries go on regardless. */
  async function produce(): Promise<void> {
    if (!options.produce) return;
    try {
      await options.produce();
    } catch (error) {
      logger.warn({ cause: describeDatabaseError(error) }, 'could not queue produced work; trying again next round');
    }
  }

  async function runOnce(): Promise<number> {
    await produce();
    const { token, items } = await leases.claim(batchSize);
    if (items.length === 0) return 0;
    await results.write(await Promise.all(items.map((item) => attempt(item, token))));
    return items.length;
  }

  /**
   * Claims as many items as there are free slots (at most a batch) and starts them; true when it
   * got all it asked for, so that more may be due.
   */
  async function fill(): Promise<boolean> {
    const limit = Math.min(batchSize, concurrency - inFlight.size);
    const { token, items } = await leases.claim(limit);
    for (const item of items) {
      const delivery: Promise<void> = attempt(item, token)
        .then(results.queue, (error: unknown) => {
          leases.release(item.id); // its lease runs out and it is attempted again
          logger.error({ err: error, item: item.id }, 'webhook attempt failed unexpectedly');
        })
        .finally(() => {
          inFlight.delete(delivery);
          if (inFlight.size === concurrency - 1) wake(); // a slot opened while all were taken
        });
      inFlight.add(delivery);
    }
    return items.length === limit;
  }

  async function run(): Promise<void> {
    while (running) {
      signalled = false;
      let more = false;
      try {
        await produce();
        if (inFlight.size < concurrency) more = await fill();
        lastClaimAt = Date.now();
        lastClaimError = undefined;
        options.onClaim?.();
      } catch (error) {
        const described = describeDatabaseError(error);
        // One line per kind of failure, not one per poll while the database is down.
        if (described !== lastClaimError) logger.error({ err: error, cause: described }, 'queue worker cannot claim work');
        lastClaimError = described;
      }
      if (!running) break;
      // Claim again at once while a claim filled its batch and there is room. A claim that got
      // fewer saw every due item not held by another worker: wait for a wake-up (new work
      // committed since, a freed slot) or the poll interval (work that fell due, expired leases).
      // No wake-up is lost: one during the claim set `signalled`; one after it finds `stopWaiting`
      // set, since no message event runs between the claim's end and the wait below.
      if (!(more && inFlight.size < concurrency) && !signalled) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollIntervalMs);
          stopWaiting = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        stopWaiting = undefined;
      }
    }
  }

  return {
    runOnce,
    prune,
    pollIntervalMs,
    lastClaimAt: () => (running ? lastClaimAt : undefined),
    lastClaimError: () => lastClaimError,
    start() {
      if (running) return;
      running = true;
      unsubscribe = options.events?.onQueueWork(wake);
      // A reconnected listener wakes the loop too: work queued while it was away is claimed at once.
      if (options.databaseUrl)
        listener = listenForQueueWork(options.databaseUrl, { logger, onWork: wake, ownPayload: options.ownNotifications });
      leases.start();
      loop = run();
      if (options.retention) {
        const { intervalMs } = options.retention;
        retentionRuns = startRetentionRuns(prune, { logger, ...(intervalMs !== undefined ? { intervalMs } : {}) });
      }
    },
    async stop() {
      running = false;
      stopWaiting?.();
      unsubscribe?.();
      await loop;
      // Deliveries under way finish and their results are written before the store closes.
      await Promise.all(inFlight);
      await results.drained();
      leases.stop();
      await listener?.close();
      await retentionRuns?.stop();
    },
  };
}
