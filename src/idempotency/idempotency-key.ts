import { createHash } from 'node:crypto';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_KEY_LENGTH = 255;

/** Printable ASCII: a UUID, a ULID or the ERP's own message id all fit; control bytes and Unicode do not. */
const KEY_PATTERN = new RegExp(`^[\\x20-\\x7e]{1,${MAX_KEY_LENGTH}}$`);

/** Why a header value is not a key, or undefined when it is one. */
export function keyProblem(value: string): string | undefined {
  if (KEY_PATTERN.test(value)) return undefined;
  if (value.length === 0) return 'Must not be empty';
  if (value.length > MAX_KEY_LENGTH) return `At most ${MAX_KEY_LENGTH} characters`;
  return 'Only printable ASCII characters (0x20 to 0x7E)';
}

/**
 * Identifies "the same request": method, path, the query in a stable order and the body bytes.
 * A retry resends the same bytes; anything else under the same key is a different request.
 */
export function requestFingerprint(method: string, url: URL, body: string): string {
  const query = [...url.searchParams].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  const bodyHash = createHash('sha256').update(body, 'utf8').digest('hex');
  return createHash('sha256')
    .update(JSON.stringify([method, url.pathname, query, bodyHash]))
    .digest('hex');
}

/**
 * A fixed-length reference to one request under one key of one caller, for services that record
 * which request created a row, so that its rerun after a crash finds the row: SHA-256 of scope,
 * key and the time the key was first claimed for it (a key reused after 24 hours is a new one).
 */
export function idempotencyRef(scope: string, key: string, since: Date): string {
  return createHash('sha256').update(`${scope}\n${key}\n${since.toISOString()}`).digest('hex');
}
