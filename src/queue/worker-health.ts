import type { Logger } from 'pino';
import { describeDatabaseError } from '../errors/database-errors';
import { recordEndpointHealth, type HealthFact, type OperationalEvent } from '../webhooks/endpoint-health';
import type { AttemptResult, ClaimedItem, RawSql } from './worker-statements';

export type WorkerHealthStep = {
  /** Called as an attempt starts: remembers what the health statement needs of the item. */
  note(item: ClaimedItem): void;
  /** Results that will never be written (lease lost, outage outlasted): nothing to remember. */
  forget(results: ReadonlyArray<{ id: number }>): void;
  /** After the result statement: updates the health of the written results' configurations. */
  record(results: readonly AttemptResult[], written: ReadonlySet<number>): Promise<void>;
};

/**
 * Endpoint health and operational events (ADR 0022) as a step of the worker: one statement of
 * its own after each result statement (per batch, not per delivery). Health is advisory: when it
 * cannot be written the results stand, and the failure is logged.
 */
export function createWorkerHealthStep(options: {
  prisma: RawSql;
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
  return {
    note(item) {
      // No request to a removed or disabled configuration: that is not the endpoint's failure.
      pending.set(item.id, {
        attempts: item.attempts,
        counted: item.url !== null && item.secret_encrypted !== null && item.active === true,
      });
    },
    forget,
    async record(results, written) {
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
      try {
        const events = await recordEndpointHealth(options.prisma, facts, { now: options.clock(), disableAfterMs: options.disableAfterMs });
        if (events.length > 0) options.onEvents?.(events);
        for (const e of events)
          if (e.event === 'webhook.disabled')
            options.logger.warn({ webhook: e.webhookId, failingSince: e.failingSince }, 'webhook configuration disabled: failing too long');
      } catch (error) {
        options.logger.warn({ cause: describeDatabaseError(error), items: facts.length }, 'could not update webhook endpoint health');
      }
    },
  };
}
