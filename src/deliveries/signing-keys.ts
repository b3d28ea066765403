import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * The keys that sign a configuration's deliveries (ADR 0017). A `whsec_` secret is Standard
 * Webhooks form: the HMAC key is the base64-decoded bytes after the prefix, which is what
 * `new Webhook(secret)` in `standardwebhooks` and `svix` expects. Any other secret is raw: its
 * UTF-8 bytes are the key (receivers use `new Webhook(secret, { format: 'raw' })`).
 *
 * The first key is current; the others are previous keys still valid until their expiry (a
 * rotation's grace period), so receivers can switch secrets without dropping a delivery. During
 * the grace period the previous key is the one X-Webhook-Signature carries (signatureHeaders).
 */
export type SigningKey = { secret: string; format: SecretFormat; expiresAt?: number };
export type SecretFormat = 'whsec' | 'raw';
export type SigningKeyring = { keys: [SigningKey, ...SigningKey[]] };

export const WHSEC_PREFIX = 'whsec_';
const GENERATED_KEY_BYTES = 32;
export const WHSEC_KEY_BYTES = { min: 24, max: 64 } as const;

/**
 * Stored keyrings start with this. Configurations that have a single raw secret store it bare,
 * as every configuration did before keyrings existed, so old rows need no migration.
 */
const KEYRING_PREFIX = 'sgw-keyring:v1:';

const storedKeyring = z.object({
  keys: z.array(z.object({ secret: z.string().min(1), format: z.enum(['whsec', 'raw']), expiresAt: z.number().int().optional() })).min(1),
});

export const generateSecret = (): string => `${WHSEC_PREFIX}${randomBytes(GENERATED_KEY_BYTES).toString('base64')}`;

export const formatOf = (secret: string): SecretFormat => (secret.startsWith(WHSEC_PREFIX) ? 'whsec' : 'raw');

/** Why a `whsec_` secret is unusable, or undefined. */
export function whsecProblem(secret: string): string | undefined {
  const encoded = secret.slice(WHSEC_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0)
    return 'A whsec_ secret must be standard base64 after the prefix';
  const bytes = Buffer.from(encoded, 'base64').length;
  if (bytes < WHSEC_KEY_BYTES.min || bytes > WHSEC_KEY_BYTES.max) {
    return `A whsec_ secret must encode ${WHSEC_KEY_BYTES.min} to ${WHSEC_KEY_BYTES.max} bytes (this one has ${bytes})`;
  }
  return undefined;
}

export function keyBytes(key: Pick<SigningKey, 'secret' | 'format'>): Buffer {
  return key.format === 'whsec' ? Buffer.from(key.secret.slice(WHSEC_PREFIX.length), 'base64') : Buffer.from(key.secret, 'utf8');
}

/** The text to encrypt for storage. */
export function encodeKeyring(keyring: SigningKeyring): string {
  const [only, ...others] = keyring.keys;
  if (others.length === 0 && only.format === 'raw' && only.expiresAt === undefined && !only.secret.startsWith(KEYRING_PREFIX))
    return only.secret;
  return `${KEYRING_PREFIX}${JSON.stringify(keyring)}`;
}

/** The keyring of a decrypted stored secret; a bare stored secret is a raw key. */
export function decodeKeyring(stored: string): SigningKeyring {
  if (stored.startsWith(KEYRING_PREFIX)) {
    try {
      const parsed = storedKeyring.safeParse(JSON.parse(stored.slice(KEYRING_PREFIX.length)));
      if (parsed.success) return parsed.data as SigningKeyring;
    } catch {
      // not a keyring after all: a raw secret that happens to start like one
    }
  }
  return { keys: [{ secret: stored, format: 'raw' }] };
}

/** A single secret as a keyring: raw secrets keep their raw form, `whsec_` ones are decoded. */
export const keyringOf = (secret: string): SigningKeyring => ({ keys: [{ secret, format: formatOf(secret) }] });

/**
 * A rotation: the new secret becomes current, the current one stays valid until `expiresAt`
 * (epoch seconds; none when the grace is zero). Earlier previous keys are dropped.
 */
export function rotateKeyring(keyring: SigningKeyring, newSecret: string, expiresAt: number | undefined): SigningKeyring {
  const [current] = keyring.keys;
  return {
    keys: [
      { secret: newSecret, format: formatOf(newSecret) },
      ...(expiresAt !== undefined ? [{ secret: current.secret, format: current.format, expiresAt }] : []),
    ],
  };
}

/** The keys that sign at this moment: the current one first, then previous keys not yet expired. */
export function signingKeysAt(keyring: SigningKeyring, epochSeconds: number): SigningKey[] {
  return keyring.keys.filter((key, index) => index === 0 || (key.expiresAt !== undefined && key.expiresAt > epochSeconds));
}

/**
 * When X-Webhook-Signature switches from the previous key to the current one (epoch seconds):
 * the end of the grace period still running at this moment, undefined when none is. Until then
 * that header keeps the previous key, which is all a SPEC 6.1 receiver knows.
 */
export function signatureSwitchAt(keyring: SigningKeyring, epochSeconds: number): number | undefined {
  return signingKeysAt(keyring, epochSeconds)[1]?.expiresAt;
}
