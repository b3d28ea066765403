import type { AttemptOutcome } from '../deliveries/delivery';

/** SPEC 6.3: attempt 1 at once, then these delays after each failed attempt. */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 8 * 3_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** An item still failing this long after its schedule started is abandoned. */
export const ABANDON_AFTER_MS = 24 * 3_600_000;

export type NextStep = { status: 'completed' } | { status: 'failed'; reason: string } | { status: 'pending'; nextAttemptAt: Date };

/**
 * What follows an attempt. `attempts` counts the attempt just made. A delivery the SSRF guard
 * refused fails at once with its reason (retrying cannot change the address); 410 Gone stops at once;
 * Retry-After may push the next attempt later than the schedule, never earlier.
 */
export function nextStep(
  item: { attempts: number; maxAttempts: number; scheduleStartedAt: Date },
  outcome: AttemptOutcome,
  now: Date,
): NextStep {
  if (outcome.ok) return { status: 'completed' };
  if (outcome.blocked) return { status: 'failed', reason: outcome.error };
  if (outcome.statusCode === 410) return { status: 'failed', reason: `${outcome.error} (410 Gone: not retried)` };
  if (item.attempts >= item.maxAttempts) {
    return { status: 'failed', reason: `${outcome.error} (gave up after ${item.attempts} attempts)` };
  }
  const delay = RETRY_DELAYS_MS[Math.min(item.attempts, RETRY_DELAYS_MS.length) - 1]!;
  const next = new Date(now.getTime() + Math.max(delay, outcome.retryAfterMs ?? 0));
  if (next.getTime() - item.scheduleStartedAt.getTime() > ABANDON_AFTER_MS) {
    return { status: 'failed', reason: `${outcome.error} (abandoned: the next attempt would be more than 24 hours after the first)` };
  }
  return { status: 'pending', nextAttemptAt: next };
}
