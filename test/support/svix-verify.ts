import { Webhook } from 'svix';

/**
 * What a receiver built on Svix's docs runs: `new Webhook(secret).verify(payload, headers)` of the
 * `svix` npm package, unmodified (it reads svix-* headers, falling back to the webhook-* names this
 * service sends; it throws on a bad signature and answers the parsed payload). svix 1.x: 2.x wants
 * Node 22.
 */
export function svixVerify(secret: string, payload: string, headers: Record<string, string | string[] | undefined>): unknown {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) flat[name.toLowerCase()] = first;
  }
  return new Webhook(secret).verify(payload, flat);
}
