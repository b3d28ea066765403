import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Verifies a delivery from sync-gateway and returns its payload. With the Standard Webhooks
 * headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) it checks them with the
 * `standardwebhooks` library, timestamp tolerance included (a replayed delivery older than five
 * minutes fails). Without them it checks SPEC's `X-Webhook-Signature` (hex HMAC-SHA256 of the raw
 * body), or `X-Webhook-Signature-Next` during a secret rotation. `secrets` may hold the old and the
 * new secret while a rotation's grace runs. `body` must be the raw body, exactly as received.
 */
export function verifyWebhook(headers: HeadersLike, body: string, secrets: string | readonly string[]): unknown {
  const get = (name: string) => headerOf(headers, name);
  const keys = (typeof secrets === 'string' ? [secrets] : secrets).map((s) => ({ secret: s, bytes: keyBytes(s) }));
  if (get('webhook-signature')) {
    const standard = {
      'webhook-id': get('webhook-id') ?? '',
      'webhook-timestamp': get('webhook-timestamp') ?? '',
      'webhook-signature': get('webhook-signature') ?? '',
    };
    for (const key of keys) {
      try {
        return new Webhook(key.bytes.toString('base64')).verify(body, standard);
      } catch {
        // the next secret, if any
      }
    }
    throw new WebhookVerificationError('webhook-signature matches none of the secrets (or webhook-timestamp is too old)');
  }
  const presented = [get('x-webhook-signature'), get('x-webhook-signature-next')].filter(
    (s): s is string => !!s && /^[0-9a-f]{64}$/i.test(s),
  );
  if (presented.length === 0) throw new WebhookVerificationError('no signature header (webhook-signature or X-Webhook-Signature)');
  for (const key of keys) {
    const expected = createHmac('sha256', key.bytes).update(body, 'utf8').digest();
    if (presented.some((hex) => timingSafeEqual(Buffer.from(hex, 'hex'), expected))) return JSON.parse(body) as unknown;
  }
  throw new WebhookVerificationError('X-Webhook-Signature matches none of the secrets');
}

export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** A `whsec_` secret is base64 key bytes after its prefix; an older raw secret is its UTF-8 bytes. */
function keyBytes(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

function headerOf(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const found = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = found === undefined ? undefined : record[found];
  return Array.isArray(value) ? value[0] : value;
}
