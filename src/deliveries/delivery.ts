import { createHmac } from 'node:crypto';
import { Agent, request, type Dispatcher } from 'undici';
import { decodeKeyring, keyBytes, signingKeysAt, type SigningKeyring } from './signing-keys';
import { urlRefusal, webhookNetworkPolicy, type NetworkPolicy } from './network-policy';
import { guardedConnector, WebhookBlockedError } from './guarded-connect';

export const DELIVERY_TIMEOUT_MS = 15_000;

/** Decoding a keyring is cheap but runs per delivery: the worker hands over the same text each time. */
const keyrings = new Map<string, SigningKeyring>();
function keyringOfStored(stored: string): SigningKeyring {
  let keyring = keyrings.get(stored);
  if (!keyring) {
    if (keyrings.size >= 1_000) keyrings.clear();
    keyring = decodeKeyring(stored);
    keyrings.set(stored, keyring);
  }
  return keyring;
}

/**
 * The signature headers of one attempt. `storedSecret` is the decrypted stored secret: a bare
 * raw secret (configurations from before ADR 0017) or a keyring. X-Webhook-Signature (SPEC 6.1)
 * is the lowercase hex HMAC-SHA256 of the exact body. A SPEC receiver checks that one header
 * against the one secret it knows, so during a rotation's grace period it keeps the previous
 * key and X-Webhook-Signature-Next carries the current one; at the end of the grace (judged by
 * this attempt's timestamp, like the key list) it switches and -Next is no longer sent. The
 * Standard Webhooks headers carry one `v1,` signature per valid key (two during the grace), so
 * `new Webhook(secret).verify(...)` from `standardwebhooks` or `svix` accepts either secret.
 */
export function signatureHeaders(storedSecret: string, messageId: string, timestampSeconds: number, body: string): Record<string, string> {
  const keys = signingKeysAt(keyringOfStored(storedSecret), timestampSeconds).map(keyBytes);
  const [current, previous] = keys as [Buffer, Buffer?];
  const hex = (key: Buffer) => createHmac('sha256', key).update(body, 'utf8').digest('hex');
  const signed = `${messageId}.${timestampSeconds}.${body}`;
  const v1 = (key: Buffer) => `v1,${createHmac('sha256', key).update(signed, 'utf8').digest('base64')}`;
  return {
    'x-webhook-signature': hex(previous ?? current),
    ...(previous ? { 'x-webhook-signature-next': hex(current) } : {}),
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': keys.map(v1).join(' '),
  };
}

/**
 * The event body in SPEC 6.2 field order, whatever order the stored JSON has, with `failure_id`
 * after `event` (items queued before it was added have none, and JSON leaves it out).
 */
export function eventBody(payload: Record<string, unknown>): string {
  // A change batch (ADR 0047) is sent as queued: its producer wrote exactly the body.
  if (payload['event'] === 'changes') return JSON.stringify(payload);
  const { event, failure_id, entity_type, external_id, source, error_message, error_details, failed_at } = payload;
  return JSON.stringify({ event, failure_id, entity_type, external_id, source, error_message, error_details, failed_at });
}

/**
 * Deliveries share keep-alive connections per receiver (undici's request API: the fan-out path
 * cannot afford fetch's stream machinery per delivery). Redirects are never followed. Every new
 * connection passes the SSRF guard on the address it actually connects to.
 */
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 128, connect: guardedConnector(webhookNetworkPolicy) });

/** What one HTTP attempt came to, as the retry schedule (src/queue/schedule.ts) reads it. */
export type AttemptOutcome =
  { ok: true; statusCode: number } | { ok: false; statusCode?: number; error: string; retryAfterMs?: number; blocked?: boolean };

export type DeliveryAttempt = AttemptOutcome & {
  durationMs: number;
  /** The start of the response body (only when asked for: the test event and the attempt log show it). */
  bodyExcerpt?: string;
  /** The response's Retry-After header as sent (the attempt log shows it). */
  retryAfter?: string;
};

export type DeliveryOptions = {
  timeoutMs?: number | undefined;
  now?: () => Date;
  /** Read this many bytes of the response body into `bodyExcerpt`. */
  excerptBytes?: number;
  /** Tests pass an agent with their own resolver. */
  dispatcher?: Dispatcher;
};

/** One POST of a signed event; never throws. */
export async function attemptDelivery(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: DeliveryOptions = {},
): Promise<DeliveryAttempt> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const refusal = cachedUrlRefusal(url, webhookNetworkPolicy());
  if (refusal) return { ok: false, blocked: true, error: `blocked: ${refusal}`, durationMs: 0 };
  try {
    const response = await request(url, {
      method: 'POST',
      dispatcher: options.dispatcher ?? agent,
      headers: { 'content-type': 'application/json', 'user-agent': 'sync-gateway-webhooks/1', ...headers },
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? DELIVERY_TIMEOUT_MS),
    });
    const bodyExcerpt = options.excerptBytes
      ? await readExcerpt(response.body, options.excerptBytes)
      : (await response.body.dump(), undefined);
    const status = response.statusCode;
    const excerpt = bodyExcerpt !== undefined ? { bodyExcerpt } : {};
    if (status >= 200 && status < 300) return { ok: true, statusCode: status, durationMs: elapsed(), ...excerpt };
    const header = response.headers['retry-after'];
    const retryAfter = typeof header === 'string' ? header : undefined;
    const retryAfterMs = parseRetryAfter(retryAfter ?? null, (options.now ?? (() => new Date()))());
    const error = status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
    return {
      ok: false,
      statusCode: status,
      error,
      durationMs: elapsed(),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(retryAfter !== undefined ? { retryAfter } : {}),
      ...excerpt,
    };
  } catch (error) {
    const blocked = blockedErrorOf(error);
    if (blocked) return { ok: false, blocked: true, error: blocked.message, durationMs: elapsed() };
    return { ok: false, error: connectionProblem(error), durationMs: elapsed() };
  }
}

/** Parsing the URL per delivery costs more than the rest of the check; a policy's verdicts never change. */
const refusalsByPolicy = new WeakMap<NetworkPolicy, Map<string, string | undefined>>();
function cachedUrlRefusal(url: string, policy: NetworkPolicy): string | undefined {
  let refusals = refusalsByPolicy.get(policy);
  if (!refusals) refusalsByPolicy.set(policy, (refusals = new Map()));
  if (refusals.has(url)) return refusals.get(url);
  if (refusals.size >= 1_000) refusals.clear();
  const refusal = urlRefusal(url, policy);
  refusals.set(url, refusal);
  return refusal;
}

function blockedErrorOf(error: unknown): WebhookBlockedError | undefined {
  for (let e = error; e instanceof Error; e = e.cause) if (e instanceof WebhookBlockedError) return e;
  return undefined;
}

/**
 * What went wrong, in a fixed vocabulary: never the receiver's bytes or an error message that
 * quotes them, so lastError cannot be used to read banners of internal services.
 */
function connectionProblem(error: unknown): string {
  const e = error as Error & { code?: string; cause?: { code?: string; name?: string } };
  const code = e.cause?.code ?? e.code ?? '';
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.cause?.name === 'TimeoutError' || /TIMEOUT/.test(code)) return 'timeout';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA') return 'host not found';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
  if (e.name === 'HTTPParserError' || code.startsWith('HPE_') || code === 'UND_ERR_RESPONSE_EXCEEDED_MAX_SIZE')
    return 'invalid HTTP response';
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED)/.test(code)) return 'TLS handshake failed';
  return 'connection failed';
}

async function readExcerpt(stream: AsyncIterable<Buffer> & { destroy(): void }, bytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= bytes) break;
  }
  if (size === 0) return '';
  // Cut at a character boundary: a partial UTF-8 sequence at the end becomes nothing, not U+FFFD.
  // NUL goes too: PostgreSQL text (and jsonb) cannot hold it.
  const text = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks).subarray(0, bytes), { stream: true });
  return text.includes('\0') ? text.replaceAll('\0', '') : text;
}

/** Retry-After as seconds or as an HTTP date. */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now.getTime());
}
