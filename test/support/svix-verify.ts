import { Webhook } from 'svix';

/**
 * What a receiver built on Svix's docs runs: `new Webhook(secret).verify(payload, headers)` of the
 * `svix` npm package, unmodified (it reads svix-* headers, falling back to the webhook-* names this
 * service sends). Since svix 2 `verify` returns nothing and throws on a bad signature; the parsed
 * payload is returned here so that tests can compare it.
 */
export function svixVerify(secret: string, payload: string, headers: Record<string, string | string[] | undefined>): unknown {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) flat[name.toLowerCase()] = first;
  }
  new Webhook(secret).verify(payload, flat);
  return JSON.parse(payload) as unknown;
}
