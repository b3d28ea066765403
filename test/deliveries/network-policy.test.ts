import { embeddedIpv4, ipv6Groups } from '../../src/deliveries/embedded-ipv4';
import { createNetworkPolicy, parseCidr, urlRefusal } from '../../src/deliveries/network-policy';

describe('webhook network policy', () => {
  const defaults = createNetworkPolicy();

  it.each([
    ['127.0.0.1', /loopback/],
    ['127.255.0.9', /loopback/],
    ['0.0.0.0', /unspecified/],
    ['169.254.169.254', /link-local/],
    ['224.0.0.251', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:169.254.169.254', /link-local/],
    ['fe80::1', /link-local/],
    ['ff02::1', /multicast/],
  ])('refuses %s by default', (address, reason) => {
    expect(defaults.refusal(address)).toMatch(reason);
  });

  it.each(['10.1.2.3', '172.16.0.1', '172.31.255.254', '192.168.1.10', 'fd12:3456::1', '93.184.216.34', '2606:4700::1111'])(
    'allows %s by default',
    (address) => {
      expect(defaults.refusal(address)).toBeUndefined();
    },
  );

  // Every IPv6 spelling that carries an IPv4 address, in dotted and in hex form.
  it.each([
    ['::127.0.0.1', 'IPv4-compatible', '127.0.0.1', /loopback/],
    ['::7f00:1', 'IPv4-compatible', '127.0.0.1', /loopback/],
    ['::ffff:7f00:1', 'IPv4-mapped', '127.0.0.1', /loopback/],
    ['::ffff:0:127.0.0.1', 'IPv4-translated', '127.0.0.1', /loopback/],
    ['64:ff9b::127.0.0.1', 'NAT64', '127.0.0.1', /loopback/],
    ['64:ff9b::7f00:1', 'NAT64', '127.0.0.1', /loopback/],
    ['64:ff9b::a9fe:a9fe', 'NAT64', '169.254.169.254', /link-local/],
    ['64:ff9b:1::7f00:1', 'local-use NAT64', '127.0.0.1', /loopback/], // the /96 layout
    ['64:ff9b:1:7f00:0:100::', 'local-use NAT64', '127.0.0.1', /loopback/], // the /48 layout
    ['64:ff9b:1:0:7f:0:100:0', 'local-use NAT64', '127.0.0.1', /loopback/], // the /64 layout
    ['2002:7f00:1::', '6to4', '127.0.0.1', /loopback/],
    ['2002:a9fe:a9fe::1', '6to4', '169.254.169.254', /link-local/],
    ['2002:e000:1::', '6to4', '224.0.0.1', /multicast/],
    // Teredo: the client 127.0.0.1 (bit-inverted in the last 32 bits), then the server 127.0.0.1.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo client', '127.0.0.1', /loopback/],
    ['2001:0:7f00:1:8000:63bf:3fff:fdd2', 'Teredo server', '127.0.0.1', /loopback/],
  ])('refuses %s as the %s form of %s', (address, form, ipv4, reason) => {
    const refusal = defaults.refusal(address);
    expect(refusal).toContain(`${address} is the ${form} form of ${ipv4}, `);
    expect(refusal).toMatch(reason);
  });

  it.each([
    ['::ffff:5db8:d822', '93.184.216.34'],
    ['::93.184.216.34', '93.184.216.34'],
    ['64:ff9b::93.184.216.34', '93.184.216.34'],
    ['64:ff9b::a01:203', '10.1.2.3'],
    ['64:ff9b:1::5db8:d822', '93.184.216.34'],
    ['64:ff9b:1:808:8:800::', '8.8.8.8'],
    ['2002:5db8:d822::1', '93.184.216.34'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '192.0.2.45'], // RFC 4380's example: server 65.54.227.120
  ])('judges %s by %s: allowed by default, refused once that address is blocked', (address, ipv4) => {
    expect(embeddedIpv4(address).map((e) => e.ipv4)).toContain(ipv4);
    expect(defaults.refusal(address)).toBeUndefined();
    const blocking = createNetworkPolicy({ allowed: [], blocked: [`${ipv4}/32`] });
    expect(blocking.refusal(address)).toMatch(new RegExp(`form of ${ipv4.replaceAll('.', '\\.')}, in WEBHOOK_BLOCKED_NETWORKS$`));
  });

  it('lets the embedded address decide: allowed IPv4 opens every form of it, an allowed IPv6 network opens none', () => {
    const loopbackAllowed = createNetworkPolicy({ allowed: ['127.0.0.1/32'], blocked: [] });
    for (const form of ['::ffff:127.0.0.1', '::7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::'])
      expect(loopbackAllowed.refusal(form)).toBeUndefined();
    expect(loopbackAllowed.refusal('64:ff9b::7f00:2')).toMatch(/loopback/);
    // A broad IPv6 allowance (global unicast) does not reopen 6to4 or Teredo spellings of loopback.
    const globalAllowed = createNetworkPolicy({ allowed: ['2000::/3'], blocked: [] });
    expect(globalAllowed.refusal('2002:7f00:1::')).toMatch(/6to4 form of 127\.0\.0\.1, a loopback/);
    expect(globalAllowed.refusal('2001:0:4136:e378:8000:63bf:80ff:fffe')).toMatch(/Teredo client form of 127\.0\.0\.1/);
    // Blocking the IPv6 prefix itself refuses whatever it embeds.
    const nat64Blocked = createNetworkPolicy({ allowed: [], blocked: ['64:ff9b::/96'] });
    expect(nat64Blocked.refusal('64:ff9b::5db8:d822')).toBe('64:ff9b::5db8:d822 is in WEBHOOK_BLOCKED_NETWORKS');
    // Either Teredo address is enough to refuse: a public client behind a loopback server is refused.
    expect(defaults.refusal('2001:0:7f00:1:8000:63bf:3fff:fdd2')).toMatch(/Teredo server form of 127\.0\.0\.1/);
  });

  it('reads IPv6 spellings into groups, and leaves IPv6 of its own alone', () => {
    expect(ipv6Groups('::127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0, 0x7f00, 1]);
    expect(ipv6Groups('64:ff9b::7f00:1%eth0')).toEqual([0x64, 0xff9b, 0, 0, 0, 0, 0x7f00, 1]);
    expect(ipv6Groups('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(ipv6Groups('127.0.0.1')).toBeUndefined();
    for (const own of ['::', '::1', '2606:4700::1111', 'fd12:3456::1', '64:ff9b:2::7f00:1', '2001:db8::7f00:1'])
      expect(embeddedIpv4(own)).toEqual([]);
    // A /48-layout local-use address: its /96 reading is the zero padding (0.0.0.0), which is skipped.
    expect(embeddedIpv4('64:ff9b:1:808:8:800::').map((e) => e.ipv4)).toEqual(['8.8.8.8', '8.8.8.0', '8.8.0.0']);
    // The price of not knowing the layout (ADR 0018): 203.0.113.5 in the /48 layout also reads as 0.113.5.0.
    expect(defaults.refusal('64:ff9b:1:cb00:71:500::')).toMatch(/form of 0\.113\.5\.0, an unspecified address/);
    expect(defaults.refusal('64:ff9b:1::')).toMatch(/local-use NAT64 form of 0\.0\.0\.0, an unspecified/);
  });

  it('lets allowed networks open built-in blocks, and blocked networks win over both', () => {
    const policy = createNetworkPolicy({ allowed: ['127.0.0.1/32', '10.9.0.0/16'], blocked: ['10.0.0.0/8', '192.168.5.5'] });
    expect(policy.refusal('127.0.0.1')).toBeUndefined();
    expect(policy.refusal('127.0.0.2')).toMatch(/loopback/);
    expect(policy.refusal('10.9.1.1')).toMatch(/WEBHOOK_BLOCKED_NETWORKS/);
    expect(policy.refusal('192.168.5.5')).toMatch(/WEBHOOK_BLOCKED_NETWORKS/);
    expect(policy.refusal('192.168.5.6')).toBeUndefined();
  });

  it('checks URLs: http(s) only, literal hosts in any spelling, localhost names', () => {
    expect(urlRefusal('ftp://example.com/x', defaults)).toMatch(/scheme ftp/);
    expect(urlRefusal('file:///etc/passwd', defaults)).toMatch(/scheme file/);
    expect(urlRefusal('http://2130706433/', defaults)).toMatch(/127\.0\.0\.1 is a loopback/);
    expect(urlRefusal('http://0x7f000001/', defaults)).toMatch(/loopback/);
    expect(urlRefusal('http://[0:0:0:0:0:0:0:1]/', defaults)).toMatch(/loopback/);
    expect(urlRefusal('http://[::127.0.0.1]/', defaults)).toBe('::7f00:1 is the IPv4-compatible form of 127.0.0.1, a loopback address');
    expect(urlRefusal('http://[64:ff9b::127.0.0.1]/', defaults)).toBe('64:ff9b::7f00:1 is the NAT64 form of 127.0.0.1, a loopback address');
    expect(urlRefusal('http://LOCALHOST./', defaults)).toMatch(/loopback/);
    expect(urlRefusal('http://api.localhost/', defaults)).toMatch(/loopback/);
    expect(urlRefusal('https://erp.example.com/hooks', defaults)).toBeUndefined();
    // localhost also resolves to ::1: both must be allowed, as the connector checks every address.
    expect(urlRefusal('http://localhost/', createNetworkPolicy({ allowed: ['127.0.0.1/32'], blocked: [] }))).toMatch(/loopback/);
    expect(urlRefusal('http://localhost/', createNetworkPolicy({ allowed: ['127.0.0.1/32', '::1/128'], blocked: [] }))).toBeUndefined();
  });

  it('parses CIDRs strictly', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr('::1')).toEqual({ address: '::1', prefix: 128, family: 'ipv6' });
    for (const bad of ['10.0.0.0/33', '::/129', 'example.com/8', '10.0.0.0/8/1', '10.0.0.0/']) expect(parseCidr(bad)).toBeUndefined();
  });
});
