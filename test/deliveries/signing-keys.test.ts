import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders } from '../../src/deliveries/delivery';
import {
  decodeKeyring,
  encodeKeyring,
  generateSecret,
  keyringOf,
  rotateKeyring,
  signatureSwitchAt,
  whsecProblem,
} from '../../src/deliveries/signing-keys';
import { svixVerify } from '../support/svix-verify';

const body = JSON.stringify({ event: 'sync_failure', entity_type: 'product', external_id: 'SKU-1' });
const now = () => Math.floor(Date.now() / 1000);
const sign = (stored: string, at = now()) => signatureHeaders(stored, 'msg_0123', at, body);

describe('signing keys', () => {
  it('generates whsec_ secrets of 32 random bytes that standardwebhooks and Svix verify unmodified', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateSecret()).not.toBe(secret);
    const headers = sign(encodeKeyring(keyringOf(secret)));
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(svixVerify(secret, body, headers)).toEqual(JSON.parse(body));
    // X-Webhook-Signature: hex HMAC of the body keyed by the same (decoded) key bytes.
    expect(headers['x-webhook-signature']).toBe(
      createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
        .update(body)
        .digest('hex'),
    );
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
    expect(() => svixVerify(generateSecret(), body, headers)).toThrow();
  });

  it('signs with a raw secret exactly as before: bare storage, UTF-8 bytes as the key ({format: "raw"} for receivers)', () => {
    const raw = 'receiver-shared-secret-123';
    expect(encodeKeyring(keyringOf(raw))).toBe(raw);
    const headers = sign(raw);
    expect(headers['x-webhook-signature']).toBe(createHmac('sha256', raw).update(body).digest('hex'));
    expect(new Webhook(raw, { format: 'raw' }).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(Buffer.from(raw).toString('base64')).verify(body, headers)).toEqual(JSON.parse(body));
    // A legacy raw secret that looks like whsec_ stays raw: its bytes, not its decoding, are the key.
    const legacy = 'whsec_c29tZS1yYXctc2VjcmV0LXRoYXQtbG9va3MtZW5jb2RlZA==';
    expect(sign(legacy)['x-webhook-signature']).toBe(createHmac('sha256', legacy).update(body).digest('hex'));
  });

  it('keeps a raw secret that begins like a stored keyring raw', () => {
    const odd = 'sgw-keyring:v1:{"not":"a keyring"}';
    expect(decodeKeyring(odd)).toEqual({ keys: [{ secret: odd, format: 'raw' }] });
    expect(decodeKeyring(encodeKeyring(keyringOf(odd)))).toEqual(keyringOf(odd));
  });

  it('refuses whsec_ secrets that are not base64 of 24 to 64 bytes', () => {
    expect(whsecProblem(generateSecret())).toBeUndefined();
    expect(whsecProblem(`whsec_${Buffer.alloc(16).toString('base64')}`)).toMatch(/24 to 64 bytes/);
    expect(whsecProblem(`whsec_${Buffer.alloc(65).toString('base64')}`)).toMatch(/24 to 64 bytes/);
    expect(whsecProblem('whsec_not*base64!')).toMatch(/base64/);
  });

  it('during a rotation signs with both keys, the old one on X-Webhook-Signature; after the grace only the new one', () => {
    for (const old of [generateSecret(), 'a-raw-secret-of-some-length']) {
      const fresh = generateSecret();
      const graceEnds = now() + 3600;
      const stored = encodeKeyring(rotateKeyring(keyringOf(old), fresh, graceEnds));
      const during = sign(stored);
      expect(during['webhook-signature']!.split(' ')).toHaveLength(2);
      expect(new Webhook(fresh).verify(body, during)).toEqual(JSON.parse(body));
      expect(svixVerify(fresh, body, during)).toEqual(JSON.parse(body));
      if (old.startsWith('whsec_')) {
        expect(new Webhook(old).verify(body, during)).toEqual(JSON.parse(body));
        expect(svixVerify(old, body, during)).toEqual(JSON.parse(body));
      } else {
        expect(new Webhook(old, { format: 'raw' }).verify(body, during)).toEqual(JSON.parse(body));
      }
      // X-Webhook-Signature keeps the old key (a SPEC receiver knows only that one); -Next has the new one.
      const hexOf = (secret: string) =>
        createHmac('sha256', secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret))
          .update(body)
          .digest('hex');
      expect(during['x-webhook-signature']).toBe(hexOf(old));
      expect(during['x-webhook-signature-next']).toBe(hexOf(fresh));
      expect(signatureSwitchAt(decodeKeyring(stored), graceEnds - 1)).toBe(graceEnds);

      // Signed at the end of the grace period (the timestamp is what counts): only the new key.
      const after = signatureHeaders(stored, 'msg_0123', graceEnds, body);
      expect(after['webhook-signature']!.split(' ')).toHaveLength(1);
      const check = (secret: string) => new Webhook(secret).sign('msg_0123', new Date(graceEnds * 1000), body);
      expect(after['webhook-signature']).toBe(check(fresh));
      expect(after['x-webhook-signature']).toBe(hexOf(fresh));
      expect(after).not.toHaveProperty('x-webhook-signature-next');
      expect(signatureSwitchAt(decodeKeyring(stored), graceEnds)).toBeUndefined();
    }
  });

  it('a second rotation drops a secret still in its grace period', () => {
    const [a, b, c] = [generateSecret(), generateSecret(), generateSecret()];
    const twice = rotateKeyring(rotateKeyring(keyringOf(a), b, now() + 3600), c, now() + 3600);
    expect(twice.keys.map((k) => k.secret)).toEqual([c, b]);
    const rotatedNoGrace = rotateKeyring(keyringOf(a), b, undefined);
    expect(rotatedNoGrace.keys.map((k) => k.secret)).toEqual([b]);
  });
});
