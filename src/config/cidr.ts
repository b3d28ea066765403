import { isIP } from 'node:net';

/**
 * Networks in CIDR notation, as the WEBHOOK_*_NETWORKS settings write them: parsed here, where
 * the configuration is validated, and used by the SSRF guard (src/deliveries/network-policy.ts).
 */
export type Cidr = { address: string; prefix: number; family: 'ipv4' | 'ipv6' };

/** `10.0.0.0/8`, `fd00::/8`, or a bare address (a /32 or /128). */
export function parseCidr(text: string): Cidr | undefined {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return undefined;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** A comma-separated CIDR list; the invalid entries are returned apart. */
export function parseNetworkList(text: string): { networks: string[]; invalid: string[] } {
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  return { networks: entries.filter((e) => parseCidr(e)), invalid: entries.filter((e) => !parseCidr(e)) };
}

/** The SSRF guard's additions to its built-in rules (ADR 0018). */
export type NetworkLists = { allowed: readonly string[]; blocked: readonly string[] };
