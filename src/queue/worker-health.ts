import type { Logger } from 'pino';
import { describeDatabaseError } from '../errors/database-errors';
import { recordEndpointHealth, type HealthFact, type OperationalEvent } from '../webhooks/endpoint-health';
import type { ClaimedItem } from './sql/claim-due-items';
import type { QueueDatabase } from './sql/queue-database';
import type { AttemptResult } from './sql/record-results';

export type WorkerHealthStep = {
  /** Called as an attempt starts: remembers what the health statement needs of the item. */
  note(item: ClaimedItem): void;
  /** Results that will never be written (lease lost, outage outlasted): nothing to remember. */
  forget(results: ReadonlyArray<{ id: number }>): void;
  /**
   * After the result statement: queues the written results for the health statement, which runs
   * beside the result writer (never holding it up); batches that wait meanwhile go together.
   */
  record(results: readonly AttemptResult[], written: ReadonlySet<number>): void;
  /** Resolves once everything recorded so far is written (or given up on); never rejects. */
  settled(): Promise<void>;
};

/**
 * Endpoint health and operational events (ADR 0022) as a step of the worker: a statement of its
 * own for the results the result statements wrote, at most one at a time, so under load it runs
 * less often than they do (never per delivery) and never delays them. Health is advisory: when it
 * cannot be written the results stand, and the failure is logged.
 */
export function createWorkerHealthStep(options: {
  database: QueueDatabase;
  logger: Logger;
  clock: () => Date;
  disableAfterMs: number;
  onEvents?: ((events: OperationalEvent[]) => void) | undefined;
}): WorkerHealthStep {
  /** Per item whose result is not written yet: its attempt number, and whether a request was made. */
  const pending = new Map<number, { attempts: number; counted: boolean }>();
  const forget = (results: ReadonlyArray<{ id: number }>) => {
    for (const r of results) pending.delete(r.id);
  };
  const waiting: HealthFact[] = [];
  let writing: Promise<void> | undefined;

  async function write(facts: HealthFact[]): Promise<void> {
    try {
      const events = await recordEndpointHealth(options.database, facts, { now: options.clock(), disableAfterMs: options.disableAfterMs });
      if (events.length > 0) options.onEvents?.(events);
      for (const e of events)
        if (e.event === 'webhook.disabled')
          options.logger.warn({ webhook: e.webhookId, failingSince: e.failingSince }, 'webhook configuration disabled: failing too long');
    } catch (error) {
      options.logger.warn({ cause: describeDatabaseError(error), items: facts.length }, 'could not update webhook endpoint health');
    }
  }

  return {
    note(item) {
      // No request to a removed or disabled configuration: that is not the endpoint's failure.
      pending.set(item.id, {
        attempts: item.attempts,
        counted: item.url !== null && item.secret_encrypted !== null && item.active === true,
      });
    },
    forget,
    record(results, written) {
      const facts: HealthFact[] = results
        .filter((r) => written.has(r.id))
        .map((r) => ({
          id: r.id,
          at: r.at,
          status: r.status,
          attempts: pending.get(r.id)?.attempts ?? 1,
          counted: pending.get(r.id)?.counted ?? false,
          error: r.error,
          status_code: r.status_code,
        }));
      forget(results);
      if (facts.length === 0) return;
      waiting.push(...facts);
      writing ??= (async () => {
        while (waiting.length > 0) await write(waiting.splice(0, waiting.length));
        writing = undefined;
      })();
    },
    settled: () => writing ?? Promise.resolve(),
  };
}
