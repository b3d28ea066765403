import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createSecretBox, loadEncryptionKey, parseEncryptionKey } from '../../src/deliveries/secret-box';

describe('secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('round-trips a secret, with a fresh IV each time', () => {
    const a = box.encrypt('hunter2-hunter2-hunter2');
    const b = box.encrypt('hunter2-hunter2-hunter2');
    expect(a).not.toBe(b);
    expect(a).not.toContain('hunter2');
    expect(box.decrypt(a)).toBe('hunter2-hunter2-hunter2');
  });

  it('refuses tampered data and the wrong key', () => {
    const sealed = box.encrypt('secret-value-1234');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1]! ^= 1;
    expect(() => box.decrypt(`v1:${raw.toString('base64')}`)).toThrow();
    expect(() => createSecretBox(randomBytes(32)).decrypt(sealed)).toThrow();
  });

  it('reads ENCRYPTION_KEY as hex or base64 and insists on 32 bytes', () => {
    const key = randomBytes(32);
    expect(parseEncryptionKey(key.toString('hex')).equals(key)).toBe(true);
    expect(parseEncryptionKey(key.toString('base64')).equals(key)).toBe(true);
    expect(() => parseEncryptionKey('too-short')).toThrow(/32 bytes/);
  });

  it('generates the embedded key once into DATA_DIR with mode 0600, and requires ENCRYPTION_KEY with PostgreSQL', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-key-'));
    try {
      const first = await loadEncryptionKey({ dataDir });
      const second = await loadEncryptionKey({ dataDir });
      expect(first.equals(second)).toBe(true);
      const file = path.join(dataDir, 'encryption.key');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await readFile(file, 'utf8')).trim()).toBe(first.toString('hex'));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
    await expect(loadEncryptionKey({ dataDir: '/nonexistent', databaseUrl: 'postgresql://x/y' })).rejects.toThrow(
      /ENCRYPTION_KEY is required/,
    );
  });
});
