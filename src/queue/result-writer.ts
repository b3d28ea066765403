import type { Logger } from 'pino';
import { databaseOutage } from '../errors/database-errors';
import type { OperationalEvent } from '../events/live-events';
import type { LeaseBook } from './lease-book';
import type { QueueDatabase } from './sql/queue-database';
import { recordResults, type AttemptResult } from './sql/record-results';

export type ResultWriterOptions = {
  database: QueueDatabase;
  leases: Pick<LeaseBook, 'release'>;
  clock: () => Date;
  /** A configuration failing this long without a success is disabled (ADR 0022); 0: never. */
  disableAfterMs: number;
  /** How long results (kept in memory) are retried while the database is unavailable. */
  resultRetryMs: number;
  /** False once the worker stops: results are then retried no more. */
  isRunning: () => boolean;
  logger: Logger;
  /** After a batch is written: its results (a dropped batch is delivered again, so not told). */
  onWritten?: ((results: readonly AttemptResult[]) => void) | undefined;
  onAttempt?: ((outcome: 'completed' | 'retry' | 'failed') => void) | undefined;
  onOperationalEvents?: ((events: OperationalEvent[]) => void) | undefined;
};

/**
 * Where a worker's attempts end: results are written in batches, one writer at a time taking all
 * that waits, each with its attempt log and its configuration's health (ADR 0022) and only while
 * its lease is still the worker's. During a database outage the batch stays in memory and is
 * retried while the leases are renewed: a brief outage costs a retry, not a repeated delivery.
 * After `resultRetryMs` the leases are let go; whoever claims the items delivers them again (at
 * least once, never lost).
 */
export type ResultWriter = {
  /** Queues one result for the next batch. */
  queue(result: AttemptResult): void;
  /** Writes `results` now, in one statement (`runOnce`); a failure is thrown. */
  write(results: AttemptResult[]): Promise<void>;
  /** Resolves once every queued result is written or dropped. */
  drained(): Promise<void>;
};

export function createResultWriter(options: ResultWriterOptions): ResultWriter {
  const { database, leases, logger } = options;
  const unwritten: AttemptResult[] = [];
  let writing: Promise<void> | undefined;

  async function write(results: AttemptResult[]): Promise<void> {
    if (results.length === 0) return;
    const { written, events } = await recordResults(database, results, { now: options.clock(), disableAfterMs: options.disableAfterMs });
    for (const r of results) leases.release(r.id);
    options.onWritten?.(results);
    for (const row of written) options.onAttempt?.(row.status === 'pending' ? 'retry' : row.status);
    const kept = new Set(written.map((w) => w.id));
    for (const r of results) {
      if (!kept.has(r.id)) logger.warn({ item: r.id }, 'delivery finished after its lease was taken over; result dropped');
      else logger.debug({ item: r.id, status: r.status }, 'webhook attempt');
    }
    if (events.length > 0) options.onOperationalEvents?.(events);
    for (const e of events)
      if (e.event === 'webhook.disabled')
        logger.warn({ webhook: e.webhookId, failingSince: e.failingSince }, 'webhook configuration disabled: failing too long');
  }

  async function writeWithRetry(batch: AttemptResult[]): Promise<void> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await write(batch);
      } catch (error) {
        const outage = databaseOutage(error);
        if (!outage || Date.now() - started >= options.resultRetryMs || !options.isRunning()) {
          for (const r of batch) leases.release(r.id);
          logger.error({ err: error, items: batch.length }, 'could not record webhook attempts; they will be delivered again');
          return;
        }
        if (attempt === 1) logger.warn({ outage, items: batch.length }, 'database unavailable while recording webhook attempts; retrying');
        await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 100 * 2 ** attempt)));
      }
    }
  }

  return {
    queue(result) {
      unwritten.push(result);
      writing ??= (async () => {
        while (unwritten.length > 0) await writeWithRetry(unwritten.splice(0, unwritten.length));
        writing = undefined;
      })();
    },
    write,
    drained: async () => {
      await writing;
    },
  };
}
