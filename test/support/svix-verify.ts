import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Svix's documented verification (docs.svix.com "Verifying payloads manually", and what
 * `new Webhook(secret).verify(payload, headers)` of the `svix` npm package does), written
 * independently because the package is not installed here: the key is the base64 after
 * `whsec_`; the headers are svix-id/svix-timestamp/svix-signature, falling back to the
 * webhook-* names; the signed content is `${id}.${timestamp}.${payload}`; any space-separated
 * `v1,<base64>` entry may match; timestamps more than 5 minutes off are refused.
 * Adding `svix` as a dev dependency would make this the real check.
 */
export function svixVerify(
  secret: string,
  payload: string,
  headers: Record<string, string | string[] | undefined>,
  nowSeconds = Math.floor(Date.now() / 1000),
): unknown {
  const header = (name: string) => {
    const value = headers[`svix-${name}`] ?? headers[`webhook-${name}`];
    return Array.isArray(value) ? value[0] : value;
  };
  const id = header('id');
  const timestamp = header('timestamp');
  const signatures = header('signature');
  if (!id || !timestamp || !signatures) throw new Error('Missing required headers');
  const seconds = Number.parseInt(timestamp, 10);
  if (Number.isNaN(seconds) || Math.abs(nowSeconds - seconds) > 300) throw new Error('Message timestamp out of tolerance');
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(`${id}.${timestamp}.${payload}`).digest('base64'));
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) continue;
    const given = Buffer.from(signature);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return JSON.parse(payload);
  }
  throw new Error('No matching signature found');
}
