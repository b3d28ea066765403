import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const ALGORITHM = 'aes-256-gcm';
const VERSION = 'v1';

/** Encrypts webhook secrets at rest (AES-256-GCM, a fresh IV per secret). */
export type SecretBox = { encrypt(plain: string): string; decrypt(sealed: string): string };

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('The encryption key must be 32 bytes');
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv(ALGORITHM, key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    decrypt(sealed) {
      const [version, data] = sealed.split(':');
      if (version !== VERSION || !data) throw new Error('Unknown secret format');
      const raw = Buffer.from(data, 'base64');
      const decipher = createDecipheriv(ALGORITHM, key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/** ENCRYPTION_KEY: 32 bytes as 64 hex characters or as base64. */
export function parseEncryptionKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}

/**
 * The key of a deployment: ENCRYPTION_KEY when set; for the embedded store, a key generated on
 * first start into DATA_DIR (mode 0600). Replicas on PostgreSQL must share one ENCRYPTION_KEY.
 */
export async function loadEncryptionKey(options: {
  encryptionKey?: string | undefined;
  databaseUrl?: string | undefined;
  dataDir: string;
}): Promise<Buffer> {
  if (options.encryptionKey) return parseEncryptionKey(options.encryptionKey);
  if (options.databaseUrl) {
    throw new Error(
      'ENCRYPTION_KEY is required with DATABASE_URL (every replica must use the same key); generate one with: openssl rand -hex 32',
    );
  }
  const file = path.join(options.dataDir, 'encryption.key');
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing) return parseEncryptionKey(existing.trim());
  await mkdir(options.dataDir, { recursive: true });
  const key = randomBytes(32);
  await writeFile(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(file, 0o600);
  return key;
}
