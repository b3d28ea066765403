import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import { bareHost, type NetworkPolicy } from './network-policy';

/** A connection the SSRF guard refused; nothing was sent. */
export class WebhookBlockedError extends Error {
  readonly code = 'ERR_WEBHOOK_BLOCKED';
  constructor(readonly reason: string) {
    super(`blocked: ${reason}`);
    this.name = 'WebhookBlockedError';
  }
}

/** dns.lookup's shape, injectable so tests can play a rebinding resolver. */
export type Lookup = typeof dnsLookup;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * An undici connector that checks the address of every new connection against the policy:
 * literal hosts before connecting, hostnames on the addresses DNS returned for this very
 * connection (so a name that resolves elsewhere the second time, DNS rebinding, is caught).
 * A name with any refused address is refused as a whole: mixing a public and a loopback
 * address is how rebinding attacks start.
 */
export function guardedConnector(
  policy: () => NetworkPolicy,
  lookup: Lookup = dnsLookup,
  options: buildConnector.BuildOptions = {},
): buildConnector.connector {
  const guardedLookup = (hostname: string, lookupOptions: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => {
    lookup(hostname, { ...lookupOptions }, ((error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
      if (error) return callback(error, address, family);
      const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
      for (const candidate of addresses) {
        const refusal = policy().refusal(candidate);
        if (refusal)
          return callback(
            new WebhookBlockedError(`${hostname} resolves to ${refusal.replace(/^\S+ is /, `${candidate}, `)}`),
            address,
            family,
          );
      }
      callback(null, address, family);
    }) as never);
  };
  const connect = buildConnector({ ...options, lookup: guardedLookup } as buildConnector.BuildOptions);
  return (connectOptions, callback) => {
    const host = bareHost(connectOptions.hostname);
    if (isIP(host)) {
      const refusal = policy().refusal(host);
      if (refusal) return callback(new WebhookBlockedError(refusal), null);
    }
    return connect(connectOptions, callback);
  };
}
