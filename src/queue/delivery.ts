import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';
import type { AttemptOutcome } from './schedule';

export const DELIVERY_TIMEOUT_MS = 15_000;

/**
 * The signature headers of one attempt: X-Webhook-Signature (SPEC 6.1: lowercase hex
 * HMAC-SHA256 of the exact body, keyed by the secret) and the Standard Webhooks headers, so that
 * receivers can verify with a standard library (key: the secret's bytes, i.e. base64 of the secret
 * for `new Webhook(...)`) and reject replays by webhook-id and timestamp.
 */
export function signatureHeaders(secret: string, messageId: string, timestampSeconds: number, body: string): Record<string, string> {
  const key = Buffer.from(secret, 'utf8');
  return {
    'x-webhook-signature': createHmac('sha256', key).update(body, 'utf8').digest('hex'),
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`, 'utf8').digest('base64')}`,
  };
}

/** The event body in SPEC 6.2 field order, whatever order the stored JSON has. */
export function eventBody(payload: Record<string, unknown>): string {
  const { event, entity_type, external_id, source, error_message, error_details, failed_at } = payload;
  return JSON.stringify({ event, entity_type, external_id, source, error_message, error_details, failed_at });
}

/**
 * Deliveries share keep-alive connections per receiver (undici's request API: the fan-out path
 * cannot afford fetch's stream machinery per delivery). Redirects are not followed.
 */
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 128 });

export async function deliver(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs?: number; now?: () => Date } = {},
): Promise<AttemptOutcome> {
  try {
    const response = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', 'user-agent': 'sync-gateway-webhooks/1', ...headers },
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? DELIVERY_TIMEOUT_MS),
    });
    await response.body.dump();
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { ok: true, statusCode: status };
    const retryAfter = response.headers['retry-after'];
    const retryAfterMs = parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : null, (options.now ?? (() => new Date()))());
    return { ok: false, statusCode: status, error: `HTTP ${status}`, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  } catch (error) {
    const e = error as Error & { code?: string; cause?: { code?: string } };
    const reason = e.name === 'TimeoutError' || e.name === 'AbortError' ? 'timed out' : (e.cause?.code ?? e.code ?? e.message);
    return { ok: false, error: `request failed: ${reason}` };
  }
}

/** Retry-After as seconds or as an HTTP date. */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now.getTime());
}
