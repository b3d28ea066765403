import { createNetworkPolicy, parseCidr, urlRefusal } from '../../src/webhooks/network-policy';

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
