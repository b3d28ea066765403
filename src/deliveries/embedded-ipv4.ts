import { isIP } from 'node:net';

/**
 * IPv6 spellings that carry an IPv4 address (ADR 0018). A packet to one of them ends up at that
 * IPv4 address (through this host's dual-stack socket, a NAT64 gateway, a 6to4 or Teredo relay),
 * so the SSRF guard judges them by the IPv4 address, not as the IPv6 address they look like.
 */
export type EmbeddedIpv4 = { ipv4: string; form: string };

/** The eight 16-bit groups of an IPv6 address in any spelling `isIP` accepts; undefined for anything else. */
export function ipv6Groups(address: string): number[] | undefined {
  const text = address.split('%', 1)[0]!; // a zone id (fe80::1%eth0) names an interface, not address bits
  if (isIP(text) !== 6) return undefined;
  const groupsOf = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  // isIP has checked the syntax: at most one `::`, which stands for as many zero groups as are missing.
  const [head = '', tail] = text.split('::');
  const left = groupsOf(head);
  if (tail === undefined) return left;
  const right = groupsOf(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const dotted = (bytes: readonly number[]): string => bytes.join('.');
const bytesOf = (groups: readonly number[]): number[] => groups.flatMap((g) => [g >> 8, g & 0xff]);
const allZero = (values: readonly number[]): boolean => values.every((v) => v === 0);

/**
 * The IPv4 addresses an IPv6 address embeds, each with the name of its form; empty when it embeds
 * none. A Teredo address names two (server and client), and an address in the local-use NAT64
 * prefix may name several (see `localUseReadings`): the guard refuses if any of them is refused.
 */
export function embeddedIpv4(address: string): EmbeddedIpv4[] {
  const g = ipv6Groups(address);
  if (!g) return [];
  const b = bytesOf(g);
  const last32 = dotted(b.slice(12));
  const of = (ipv4: string, form: string): EmbeddedIpv4[] => [{ ipv4, form }];
  // ::ffff:a.b.c.d, IPv4-mapped (RFC 4291 2.5.5.2): what a dual-stack socket uses for IPv4 peers.
  if (allZero(g.slice(0, 5)) && g[5] === 0xffff) return of(last32, 'IPv4-mapped');
  // ::ffff:0:a.b.c.d, IPv4-translated (RFC 2765, SIIT).
  if (allZero(g.slice(0, 4)) && g[4] === 0xffff && g[5] === 0) return of(last32, 'IPv4-translated');
  // ::a.b.c.d, IPv4-compatible (RFC 4291 2.5.5.1, deprecated); :: and ::1 are IPv6's own unspecified and loopback.
  if (allZero(g.slice(0, 6)) && !(g[6] === 0 && g[7]! <= 1)) return of(last32, 'IPv4-compatible');
  // 64:ff9b::/96, the NAT64 well-known prefix (RFC 6052): always the /96 layout.
  if (g[0] === 0x64 && g[1] === 0xff9b && allZero(g.slice(2, 6))) return of(last32, 'NAT64');
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return localUseReadings(b);
  // 2002::/16, 6to4 (RFC 3056): the IPv4 address of the site's relay is in bits 16 to 47.
  if (g[0] === 0x2002) return of(dotted(b.slice(2, 6)), '6to4');
  // 2001::/32, Teredo (RFC 4380): the server in bits 32 to 63, the client (bit-inverted) in the last 32 bits.
  if (g[0] === 0x2001 && g[1] === 0) {
    return [
      { ipv4: dotted(b.slice(4, 8)), form: 'Teredo server' },
      { ipv4: dotted(b.slice(12).map((x) => x ^ 0xff)), form: 'Teredo client' },
    ];
  }
  return [];
}

/**
 * 64:ff9b:1::/48, the local-use NAT64 prefix (RFC 8215): the network chooses the prefix length
 * inside it, and with it where the IPv4 address sits (RFC 6052 2.2: /48, /56, /64 or /96; bits
 * 64 to 71 are zero in all of them). Which one this network uses cannot be known here, so the
 * address is read in every layout it fits (the IPv4 address followed by zero bits). A reading
 * of 0.0.0.0 is the zero padding of a shorter layout and is skipped when another reading exists.
 */
function localUseReadings(b: readonly number[]): EmbeddedIpv4[] {
  const form = 'local-use NAT64';
  const layouts: Array<{ ipv4: number[]; suffix: number[] }> = [
    { ipv4: [b[6]!, b[7]!, b[9]!, b[10]!], suffix: b.slice(11) },
    { ipv4: [b[7]!, b[9]!, b[10]!, b[11]!], suffix: b.slice(12) },
    { ipv4: b.slice(9, 13), suffix: b.slice(13) },
  ];
  const readings = [
    ...(b[8] === 0 ? layouts.filter((l) => allZero(l.suffix)).map((l) => dotted(l.ipv4)) : []),
    dotted(b.slice(12)), // the /96 layout, the usual one: read whatever bits 64 to 71 hold
  ];
  const distinct = [...new Set(readings)];
  const meaningful = distinct.filter((ipv4) => ipv4 !== '0.0.0.0');
  return (meaningful.length > 0 ? meaningful : distinct).map((ipv4) => ({ ipv4, form }));
}
