import type { Logger } from 'pino';
import { describeDatabaseError } from '../errors/database-errors';
import { deleteCompletedItems } from './sql/delete-completed-items';
import { deleteExpiredHistory } from './sql/delete-expired-history';
import { deleteResolvedFailures } from './sql/delete-resolved-failures';
import type { QueueDatabase } from './sql/queue-database';

const DAY_MS = 86_400_000;

/** How long finished records are kept, in days; 0 keeps them forever. */
export type RetentionPolicy = {
  completedDays: number;
  resolvedDays: number;
  /** Change-history entries (ADR 0031); left out, like 0, keeps them and leaves historyEntries out of the result. */
  historyDays?: number;
};

/** The worker's retention: the policy, and how its runs go. */
export type RetentionSettings = RetentionPolicy & {
  /** Pause between runs that finished; a run cut short by its time limit is followed after a second. */
  intervalMs?: number | undefined;
  batchSize?: number | undefined;
  timeLimitMs?: number | undefined;
};

export type PruneOptions = {
  /** The worker's clock: ages are measured from it (tests inject one). */
  now: Date;
  /** Rows deleted per statement: short statements keep locks and the embedded store's thread free. */
  batchSize?: number | undefined;
  /** A run stops after the batch that passes this; the rest waits for the next run. */
  timeLimitMs?: number | undefined;
};

export type PruneResult = {
  /** Completed queue items deleted (their attempt log goes with them). */
  completedItems: number;
  /** Resolved failures deleted. */
  resolvedFailures: number;
  /** Change-history entries deleted; present when the policy names historyDays. */
  historyEntries?: number;
  /** False when the time limit ended the run with more to delete. */
  finished: boolean;
};

export const DEFAULT_PRUNE_BATCH = 500;
export const DEFAULT_PRUNE_TIME_LIMIT_MS = 2_000;

/**
 * Deletes what retention allows, oldest first, in batches: completed queue items (and, by the
 * foreign key's cascade, their attempts) completed more than `completedDays` ago, and resolved
 * failures resolved more than `resolvedDays` ago. Nothing else: open failures and pending,
 * processing or failed items stay whatever their age. Rows are taken FOR UPDATE SKIP LOCKED and
 * their status checked again under the lock, so replicas may prune at once and a resend racing a
 * prune either wins (the item is pending again and stays) or finds the item gone.
 */
export async function pruneExpired(db: QueueDatabase, policy: RetentionPolicy, options: PruneOptions): Promise<PruneResult> {
  const batchSize = options.batchSize ?? DEFAULT_PRUNE_BATCH;
  const timeLimitMs = options.timeLimitMs ?? DEFAULT_PRUNE_TIME_LIMIT_MS;
  const started = performance.now();
  const result: PruneResult = {
    completedItems: 0,
    resolvedFailures: 0,
    ...(policy.historyDays !== undefined ? { historyEntries: 0 } : {}),
    finished: true,
  };
  const steps: Array<{ days: number; deleteBatch: typeof deleteCompletedItems; count: keyof Omit<PruneResult, 'finished'> }> = [
    { days: policy.completedDays, deleteBatch: deleteCompletedItems, count: 'completedItems' },
    { days: policy.resolvedDays, deleteBatch: deleteResolvedFailures, count: 'resolvedFailures' },
    { days: policy.historyDays ?? 0, deleteBatch: deleteExpiredHistory, count: 'historyEntries' },
  ];
  for (const step of steps) {
    if (step.days <= 0) continue;
    const cutoff = new Date(options.now.getTime() - step.days * DAY_MS);
    for (;;) {
      const deleted = await step.deleteBatch(db, cutoff, batchSize);
      result[step.count] = (result[step.count] ?? 0) + deleted;
      if (deleted < batchSize) break;
      if (performance.now() - started >= timeLimitMs) return { ...result, finished: false };
    }
  }
  return result;
}

export type RetentionRuns = { stop(): Promise<void> };

/**
 * Runs `prune` in the background: first after `firstDelayMs` (a process starting after a crash
 * delivers before it tidies up), then every `intervalMs`, or after a second when a run was cut
 * short by its time limit. A failed run (the database away) is logged and tried again later.
 */
export function startRetentionRuns(
  prune: () => Promise<PruneResult>,
  options: { logger: Logger; intervalMs?: number; firstDelayMs?: number },
): RetentionRuns {
  const intervalMs = options.intervalMs ?? 10 * 60_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = prune().then(
        (result) => {
          if (result.completedItems + result.resolvedFailures + (result.historyEntries ?? 0) > 0) {
            options.logger.info(result, 'retention pruned finished records');
          }
          schedule(result.finished ? intervalMs : 1_000);
        },
        (error: unknown) => {
          options.logger.warn({ cause: describeDatabaseError(error) }, 'retention run failed; it runs again later');
          schedule(intervalMs);
        },
      );
    }, delayMs);
    timer.unref();
  };
  schedule(options.firstDelayMs ?? 30_000);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
