import type { DeliveryAttempt } from './delivery';

export const ATTEMPT_OUTCOMES = ['success', 'http_error', 'timeout', 'network_error', 'blocked', 'gone'] as const;
export type AttemptLogOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** How much of a receiver's answer the attempt log keeps: enough to read an error page's message. */
export const ATTEMPT_BODY_EXCERPT_BYTES = 4096;
/** A Retry-After longer than this is not a delay or a date; the log keeps its start. */
const RETRY_AFTER_MAX_CHARS = 100;

/** One row of delivery_attempts as the worker hands it to its result statement (snake_case, as the SQL reads it). */
export type AttemptLogEntry = {
  attempt: number;
  started_at: string;
  duration_ms: number;
  outcome: AttemptLogOutcome;
  http_status: number | null;
  attempt_error: string | null;
  response_body: string | null;
  retry_after: string | null;
};

/**
 * The log entry of one attempt. `attempt` is the item's attempt number in its schedule. The error
 * is the outcome's own ("HTTP 500", "connection refused", "timeout", "blocked: …"): the fixed
 * vocabulary of lastError, never a receiver's or an internal service's banner.
 */
export function attemptLogEntry(attempt: number, startedAt: Date, result: DeliveryAttempt): AttemptLogEntry {
  return {
    attempt,
    started_at: startedAt.toISOString(),
    duration_ms: result.durationMs,
    outcome: outcomeOf(result),
    http_status: result.statusCode ?? null,
    attempt_error: result.ok ? null : result.error,
    response_body: result.bodyExcerpt ?? null,
    retry_after: result.retryAfter === undefined ? null : result.retryAfter.slice(0, RETRY_AFTER_MAX_CHARS),
  };
}

/** An attempt that sent nothing because the item's configuration was removed or disabled. */
export function undeliverableEntry(attempt: number, startedAt: Date, error: string): AttemptLogEntry {
  return {
    attempt,
    started_at: startedAt.toISOString(),
    duration_ms: 0,
    outcome: 'gone',
    http_status: null,
    attempt_error: error,
    response_body: null,
    retry_after: null,
  };
}

function outcomeOf(result: DeliveryAttempt): AttemptLogOutcome {
  if (result.ok) return 'success';
  if (result.blocked) return 'blocked';
  if (result.statusCode === 410) return 'gone';
  if (result.statusCode !== undefined) return 'http_error';
  return result.error === 'timeout' ? 'timeout' : 'network_error';
}
