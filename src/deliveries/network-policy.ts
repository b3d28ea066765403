import { BlockList, isIP } from 'node:net';
import { parseCidr, parseNetworkList, type NetworkLists } from '../config/cidr';
import { embeddedIpv4 } from './embedded-ipv4';

export { parseCidr, parseNetworkList, type NetworkLists } from '../config/cidr';

/**
 * Which addresses webhook deliveries may connect to (the SSRF guard, ADR 0018). Loopback,
 * unspecified, link-local (cloud metadata), multicast, broadcast and reserved addresses are
 * refused; private ranges are allowed because an on-prem ERP lives there. Explicitly blocked
 * networks win over explicitly allowed ones, which win over the built-in list. An IPv6 address
 * that embeds an IPv4 address (mapped, NAT64, 6to4, Teredo…) is judged by that IPv4 address.
 */
export type NetworkPolicy = {
  /** Why the address may not be contacted, or undefined when it may. */
  refusal(address: string): string | undefined;
};

const BUILT_IN_BLOCKS: ReadonlyArray<[cidr: string, what: string]> = [
  ['0.0.0.0/8', 'an unspecified address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address (cloud metadata lives there)'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved or broadcast address'],
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['fe80::/10', 'a link-local address'],
  ['ff00::/8', 'a multicast address'],
];

function blockListOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const text of cidrs) {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`Not a network in CIDR notation: ${text}`);
    list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return list;
}

/** Strips the brackets of an IPv6 URL host. */
export const bareHost = (host: string): string => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

export function createNetworkPolicy(lists: NetworkLists = { allowed: [], blocked: [] }): NetworkPolicy {
  const blocked = blockListOf(lists.blocked);
  const allowed = blockListOf(lists.allowed);
  const builtIn = BUILT_IN_BLOCKS.map(([cidr, what]) => ({ list: blockListOf([cidr]), what }));
  /** What the address is when refused ("a loopback address"), undefined when it may be contacted. */
  const verdict = (address: string, family: 'ipv4' | 'ipv6'): string | undefined => {
    if (blocked.check(address, family)) return 'in WEBHOOK_BLOCKED_NETWORKS';
    if (allowed.check(address, family)) return undefined;
    return builtIn.find((b) => b.list.check(address, family))?.what;
  };
  return {
    refusal(host) {
      const address = bareHost(host);
      const version = isIP(address);
      if (version === 0) return `${host} is not an IP address`;
      const embedded = version === 6 ? embeddedIpv4(address) : [];
      if (embedded.length === 0) {
        const what = verdict(address, version === 4 ? 'ipv4' : 'ipv6');
        return what && `${address} is ${what}`;
      }
      // The IPv4 address decides (each of them, when the form names several). A block of the IPv6
      // form itself (64:ff9b::/96, 2002::/16) still counts; an allowed IPv6 network does not open
      // it, so a broad allowance such as 2000::/3 cannot let 6to4 or Teredo reach loopback.
      for (const { ipv4, form } of embedded) {
        const what = verdict(ipv4, 'ipv4');
        if (what) return `${address} is the ${form} form of ${ipv4}, ${what}`;
      }
      return blocked.check(address, 'ipv6') ? `${address} is in WEBHOOK_BLOCKED_NETWORKS` : undefined;
    },
  };
}

/** Hostnames that always mean this machine (RFC 6761), refused without asking DNS. */
const LOOPBACK_NAMES = /^(localhost|localhost\.localdomain)\.?$|\.localhost\.?$/i;

/**
 * Why a webhook URL is refused before any lookup: a scheme other than http(s), or a host that is
 * a literal blocked address (or localhost). Hostnames are checked again at every connection,
 * after DNS, by the delivery's connector.
 */
export function urlRefusal(url: string, policy: NetworkPolicy): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `the scheme ${parsed.protocol.slice(0, -1)} is not allowed (http or https only)`;
  const host = bareHost(parsed.hostname);
  if (isIP(host)) return policy.refusal(host);
  // It resolves to 127.0.0.1 and ::1, and the connector refuses a name if any address is refused.
  if (LOOPBACK_NAMES.test(host) && (policy.refusal('127.0.0.1') || policy.refusal('::1'))) return `${host} is a loopback address`;
  return undefined;
}

let current: NetworkPolicy | undefined;
let currentLists: NetworkLists | undefined;

/**
 * The policy of this process: set at start from the configuration (`serve`, `worker`); a thread
 * or process that did not set it reads WEBHOOK_ALLOWED_NETWORKS / WEBHOOK_BLOCKED_NETWORKS from
 * its environment, which is where the configuration comes from.
 */
export function webhookNetworkPolicy(): NetworkPolicy {
  if (!current) {
    const read = (name: string) => {
      const { networks, invalid } = parseNetworkList(process.env[name] ?? '');
      if (invalid.length > 0) throw new Error(`${name}: not networks in CIDR notation: ${invalid.join(', ')}`);
      return networks;
    };
    setWebhookNetworks({ allowed: read('WEBHOOK_ALLOWED_NETWORKS'), blocked: read('WEBHOOK_BLOCKED_NETWORKS') });
  }
  return current!;
}

export function setWebhookNetworks(lists: NetworkLists): void {
  current = createNetworkPolicy(lists);
  currentLists = lists;
}

/** The lists in force (for tests that change them and put them back). */
export function webhookNetworks(): NetworkLists {
  webhookNetworkPolicy();
  return currentLists!;
}
