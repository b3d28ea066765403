import type { SecretBox } from '../deliveries/secret-box';
import { attemptDelivery, eventBody, signatureHeaders, type AttemptOutcome } from '../deliveries/delivery';
import { ATTEMPT_BODY_EXCERPT_BYTES, attemptLogEntry, undeliverableEntry, type AttemptLogEntry } from '../deliveries/attempt-log';
import { nextStep } from './schedule';
import type { ClaimedItem } from './sql/claim-due-items';
import type { AttemptResult } from './sql/record-results';

/** One attempt at a claimed item: the signed request (or none, its configuration gone) and the next step of its schedule. */
export type ItemAttempt = (item: ClaimedItem, leaseToken: string) => Promise<AttemptResult>;

export function createItemAttempt(options: { secrets: SecretBox; clock: () => Date; timeoutMs?: number | undefined }): ItemAttempt {
  const { clock } = options;
  /** Decrypting is deterministic per ciphertext; a changed secret is a new ciphertext. */
  const secretsByCiphertext = new Map<string, string>();
  function secretOf(ciphertext: string): string {
    let secret = secretsByCiphertext.get(ciphertext);
    if (secret === undefined) {
      if (secretsByCiphertext.size >= 1_000) secretsByCiphertext.clear();
      secret = options.secrets.decrypt(ciphertext);
      secretsByCiphertext.set(ciphertext, secret);
    }
    return secret;
  }

  return async (item, leaseToken) => {
    const startedAt = clock();
    let outcome: AttemptOutcome;
    let log: AttemptLogEntry;
    const { url, secret_encrypted: secret } = item;
    // No request to a removed or disabled configuration: that is not the endpoint's failure.
    const counted = url !== null && secret !== null && item.active === true;
    if (!counted) {
      const error = url === null || secret === null ? 'webhook configuration removed' : 'webhook configuration disabled';
      outcome = { ok: false, statusCode: 410, error };
      log = undeliverableEntry(item.attempts, startedAt, error);
    } else {
      const body = eventBody(item.payload);
      const headers = signatureHeaders(secretOf(secret), item.message_id, Math.floor(startedAt.getTime() / 1000), body);
      const result = await attemptDelivery(url, body, headers, {
        timeoutMs: options.timeoutMs,
        now: clock,
        excerptBytes: ATTEMPT_BODY_EXCERPT_BYTES,
      });
      log = attemptLogEntry(item.attempts, startedAt, result);
      outcome = result;
    }
    const now = clock();
    const step = nextStep(
      { attempts: item.attempts, maxAttempts: item.max_attempts, scheduleStartedAt: new Date(item.schedule_started_at) },
      outcome,
      now,
    );
    return {
      ...log,
      id: item.id,
      lease_token: leaseToken,
      status: step.status,
      at: now.toISOString(),
      status_code: outcome.statusCode ?? null,
      error: outcome.ok ? null : step.status === 'failed' ? step.reason : (outcome.error ?? null),
      next_attempt_at: step.status === 'pending' ? step.nextAttemptAt.toISOString() : null,
      counted,
    };
  };
}
