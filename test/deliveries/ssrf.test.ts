import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Agent, request } from 'undici';
import { createToken } from '../../src/auth/token.service';
import { attemptDelivery } from '../../src/deliveries/delivery';
import { guardedConnector, WebhookBlockedError, type Lookup } from '../../src/deliveries/guarded-connect';
import { createWorker } from '../../src/queue/worker';
import { createNetworkPolicy, setWebhookNetworks } from '../../src/deliveries/network-policy';
import { backends, clearDeliveries } from '../support/database';
import { useApiFixture } from '../support/http';
import { startReceiver } from '../support/receiver';

const NOTHING_ALLOWED = { allowed: [], blocked: [] };

/** 127.0.0.1 in every IPv6 form that embeds an IPv4 address, dotted and hex (ADR 0018). */
const LOOPBACK_EMBEDDED_IN_IPV6 = [
  '::127.0.0.1', // IPv4-compatible
  '::7f00:1',
  '::ffff:7f00:1', // IPv4-mapped
  '::ffff:0:7f00:1', // IPv4-translated
  '64:ff9b::127.0.0.1', // NAT64, well-known prefix
  '64:ff9b::7f00:1',
  '64:ff9b:1::7f00:1', // NAT64, local-use prefix (/96 and /48 layouts)
  '64:ff9b:1:7f00:0:100::',
  '2002:7f00:1::', // 6to4
  '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1
  '2001:0:7f00:1:8000:63bf:3fff:fdd2', // Teredo, server 127.0.0.1
];
/** 93.184.216.34, a public address, in the same forms. */
const PUBLIC_EMBEDDED_IN_IPV6 = ['::ffff:5db8:d822', '64:ff9b::93.184.216.34', '64:ff9b:1::5db8:d822', '2002:5db8:d822::1'];

/** An HTTP server on a given loopback address that counts what reaches it. */
async function listenOn(host: string, port = 0, reply: (res: ServerResponse) => void = (res) => res.end('ok')) {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    reply(res);
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return {
    hits,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe.each(backends)('SSRF guard on %s', (backend) => {
  const ctx = useApiFixture(backend, { webhookNetworks: NOTHING_ALLOWED });
  const logger = pino({ level: 'silent' });
  let v4: Awaited<ReturnType<typeof startReceiver>>;
  let v6: Awaited<ReturnType<typeof listenOn>>;

  beforeAll(async () => {
    v4 = await startReceiver();
    v6 = await listenOn('::1');
  });
  afterAll(async () => {
    await v4.close();
    await v6.close();
  });
  beforeEach(async () => {
    setWebhookNetworks(NOTHING_ALLOWED);
    await clearDeliveries(ctx.db.prisma);
    v4.requests.length = 0;
    v6.hits.length = 0;
  });

  const port = () => new URL(v4.url).port;
  const blockedTable = () => [
    `http://127.0.0.1:${port()}/hook`,
    `http://localhost:${port()}/hook`,
    `http://0.0.0.0:${port()}/hook`,
    `http://2130706433:${port()}/hook`,
    `http://0x7f.1:${port()}/hook`,
    `http://[::1]:${v6.port}/hook`,
    `http://[::ffff:127.0.0.1]:${port()}/hook`,
    ...LOOPBACK_EMBEDDED_IN_IPV6.map((address) => `http://[${address}]:${port()}/hook`),
    'http://[64:ff9b::169.254.169.254]/latest/meta-data/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/hook',
    'http://224.0.0.1/hook',
    'http://255.255.255.255/hook',
    'http://127.0.0.1:6379/', // Redis
    'http://127.0.0.1:5432/', // PostgreSQL
  ];

  it('fails a delivery to every blocked address at once, with nothing sent and the reason in lastError', async () => {
    // Rows as they may exist from before the guard (creating them now is refused, see below).
    for (const url of blockedTable()) {
      await ctx.db.prisma.webhookConfig.create({
        data: {
          url,
          entityType: 'product',
          direction: 'to_webshop',
          active: true,
          secretEncrypted: ctx.api.secrets.encrypt('legacy-raw-secret-123'),
        },
      });
    }
    const reported = await ctx.api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'product', external_id: 'SKU-SSRF', source: 'erp', error_message: 'x' },
    });
    expect(reported.status).toBe(201);
    const worker = createWorker({ database: ctx.db.prisma, secrets: ctx.api.secrets, logger });
    expect(await worker.runOnce()).toBe(blockedTable().length);

    const items = await ctx.db.prisma.outboundQueueItem.findMany({ include: { webhookConfig: true }, orderBy: { id: 'asc' } });
    for (const item of items) {
      expect({ url: item.webhookConfig!.url, status: item.status, attempts: item.attempts, error: item.lastError }).toEqual({
        url: item.webhookConfig!.url,
        status: 'failed',
        attempts: 1,
        error: expect.stringMatching(
          /^blocked: \S+ is (the [\w -]+ form of [\d.]+, )?(a loopback|an unspecified|a link-local|a multicast|a reserved or broadcast) address/,
        ),
      });
    }
    expect(v4.requests).toHaveLength(0);
    expect(v6.hits).toHaveLength(0);
  });

  it('refuses to create or update a configuration to a literal blocked address, naming url', async () => {
    const { token } = await createToken(ctx.db.prisma, `admin-ssrf-${backend}`, 'admin');
    const asAdmin = (query: string) => ctx.api.request('POST', '/graphql', { token, body: { query } });
    for (const url of [...blockedTable(), 'http://sub.localhost/hook']) {
      const res = await asAdmin(
        `mutation { createWebhookConfig(url: ${JSON.stringify(url)}, entityType: product, direction: to_erp) { id } }`,
      );
      expect({
        url,
        code: res.body.errors?.[0]?.extensions?.code,
        fields: res.body.errors?.[0]?.extensions?.details?.map((d: { field: string }) => d.field),
      }).toEqual({
        url,
        code: 'VALIDATION_FAILED',
        fields: ['url'],
      });
    }
    expect(await ctx.db.prisma.webhookConfig.count()).toBe(0);

    // Private ranges are allowed by default (an on-prem ERP lives there), unless blocked.
    const created = await asAdmin(
      'mutation { createWebhookConfig(url: "http://10.20.30.40/hook", entityType: product, direction: to_erp) { id newSecret } }',
    );
    const id = created.body.data.createWebhookConfig.id;
    const moved = await asAdmin(`mutation { updateWebhookConfig(id: ${id}, url: "http://169.254.169.254/") { id } }`);
    expect(moved.body.errors[0].extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'url', message: expect.stringMatching(/link-local/) }],
    });
    // An IPv6 form of a public address is judged by that address: allowed, unless it is blocked.
    for (const address of PUBLIC_EMBEDDED_IN_IPV6) {
      const url = `http://[${address}]/hook`;
      const res = await asAdmin(`mutation { createWebhookConfig(url: "${url}", entityType: product, direction: to_erp) { id } }`);
      expect({ url, errors: res.body.errors }).toEqual({ url, errors: undefined });
    }
    setWebhookNetworks({ allowed: [], blocked: ['93.184.216.34/32'] });
    for (const address of PUBLIC_EMBEDDED_IN_IPV6) {
      const res = await asAdmin(
        `mutation { createWebhookConfig(url: "http://[${address}]/", entityType: product, direction: to_erp) { id } }`,
      );
      expect(res.body.errors?.[0]?.extensions?.details).toEqual([
        { field: 'url', message: expect.stringMatching(/form of 93\.184\.216\.34, in WEBHOOK_BLOCKED_NETWORKS/) },
      ]);
    }
    setWebhookNetworks({ allowed: ['127.0.0.1/32'], blocked: ['10.0.0.0/8'] });
    const blocked = await asAdmin(
      'mutation { createWebhookConfig(url: "http://10.1.2.3/hook", entityType: product, direction: to_erp) { id } }',
    );
    expect(blocked.body.errors[0].extensions.details[0]).toMatchObject({
      field: 'url',
      message: expect.stringMatching(/WEBHOOK_BLOCKED_NETWORKS/),
    });
    const allowed = await asAdmin(
      `mutation { createWebhookConfig(url: "http://127.0.0.1:${port()}/hook", entityType: product, direction: to_erp) { id } }`,
    );
    expect(allowed.body.errors).toBeUndefined();
  });

  it('does not follow a redirect: the target gets nothing and the item is retried later', async () => {
    setWebhookNetworks({ allowed: ['127.0.0.1/32'], blocked: [] });
    const target = await listenOn('127.0.0.2');
    const redirector = await startReceiver(() => ({ status: 302, headers: { location: `http://127.0.0.2:${target.port}/internal` } }));
    try {
      await ctx.db.prisma.webhookConfig.create({
        data: {
          url: redirector.url,
          entityType: 'product',
          direction: 'to_webshop',
          active: true,
          secretEncrypted: ctx.api.secrets.encrypt('legacy-raw-secret-123'),
        },
      });
      await ctx.api.request('POST', '/api/v1/failures', {
        body: { entity_type: 'product', external_id: 'SKU-302', source: 'erp', error_message: 'x' },
      });
      expect(await createWorker({ database: ctx.db.prisma, secrets: ctx.api.secrets, logger }).runOnce()).toBe(1);
      expect(redirector.requests).toHaveLength(1);
      expect(target.hits).toHaveLength(0);
      expect(await ctx.db.prisma.outboundQueueItem.findFirstOrThrow()).toMatchObject({
        status: 'pending',
        lastStatusCode: 302,
        lastError: 'HTTP 302 (redirects are not followed)',
      });
    } finally {
      await redirector.close();
      await target.close();
    }
  });
});

describe('SSRF guard at connect time (DNS answers)', () => {
  let allowedHost: Awaited<ReturnType<typeof listenOn>>;
  let loopback: Awaited<ReturnType<typeof listenOn>>;

  beforeAll(async () => {
    setWebhookNetworks(NOTHING_ALLOWED);
    // Every answer closes its connection, so each delivery opens (and checks) a new one.
    allowedHost = await listenOn('127.0.0.2', 0, (res) => res.setHeader('connection', 'close').end('ok'));
    loopback = await listenOn('127.0.0.1', allowedHost.port);
  });
  afterAll(async () => {
    await allowedHost.close();
    await loopback.close();
  });

  /** A resolver that answers from a script, as a rebinding attacker's DNS server would. */
  function scriptedLookup(answers: string[][]): { lookup: Lookup; calls: () => number } {
    let calls = 0;
    const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      const addresses = answers[Math.min(calls++, answers.length - 1)]!.map((address) => ({
        address,
        family: address.includes(':') ? 6 : 4,
      }));
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    }) as unknown as Lookup;
    return { lookup, calls: () => calls };
  }

  const policy = createNetworkPolicy({ allowed: ['127.0.0.2/32'], blocked: [] });

  it('checks the address of every connection, so a name that rebinds to loopback is refused', async () => {
    const dns = scriptedLookup([['127.0.0.2'], ['127.0.0.1']]);
    const dispatcher = new Agent({ connect: guardedConnector(() => policy, dns.lookup) });
    const url = `http://rebind.example:${allowedHost.port}/hook`;
    try {
      expect(await attemptDelivery(url, '{}', {}, { dispatcher })).toMatchObject({ ok: true, statusCode: 200 });
      expect(await attemptDelivery(url, '{}', {}, { dispatcher })).toMatchObject({
        ok: false,
        blocked: true,
        error: 'blocked: rebind.example resolves to 127.0.0.1, a loopback address',
      });
      expect(dns.calls()).toBe(2);
      expect(allowedHost.hits).toHaveLength(1);
      expect(loopback.hits).toHaveLength(0);
    } finally {
      await dispatcher.close();
    }
  });

  it('refuses a name when any of its addresses is refused', async () => {
    const dns = scriptedLookup([['127.0.0.2', '127.0.0.1']]);
    const dispatcher = new Agent({ connect: guardedConnector(() => policy, dns.lookup) });
    try {
      const attempt = await attemptDelivery(`http://mixed.example:${allowedHost.port}/hook`, '{}', {}, { dispatcher });
      expect(attempt).toMatchObject({
        ok: false,
        blocked: true,
        error: expect.stringMatching(/^blocked: mixed.example resolves to 127.0.0.1/),
      });
    } finally {
      await dispatcher.close();
    }
  });

  it.each(LOOPBACK_EMBEDDED_IN_IPV6)('refuses a name that resolves to %s, 127.0.0.1 in IPv6 form (as DNS64 answers)', async (address) => {
    const dns = scriptedLookup([[address]]);
    const dispatcher = new Agent({ connect: guardedConnector(() => policy, dns.lookup) });
    try {
      const attempt = await attemptDelivery(`http://dns64.example:${allowedHost.port}/hook`, '{}', {}, { dispatcher });
      expect(attempt).toMatchObject({ ok: false, blocked: true });
      expect((attempt as { error: string }).error).toMatch(
        /^blocked: dns64\.example resolves to \S+, the [\w -]+ form of 127\.0\.0\.1, a loopback/,
      );
      expect((attempt as { error: string }).error).toContain(`resolves to ${address}, `);
      expect(dns.calls()).toBe(1);
      expect(loopback.hits).toHaveLength(0);
    } finally {
      await dispatcher.close();
    }
  });

  it('refuses those forms as literal hosts in the connector itself, and connects to the mapped form of an allowed address', async () => {
    const dispatcher = new Agent({ connect: guardedConnector(() => policy) });
    try {
      for (const address of LOOPBACK_EMBEDDED_IN_IPV6) {
        // Straight to the connector, past attemptDelivery's own check of the URL.
        const failure = await request(`http://[${address}]:${loopback.port}/hook`, { method: 'POST', body: '{}', dispatcher }).then(
          () => undefined,
          (error: unknown) => error,
        );
        let blocked = failure;
        while (blocked instanceof Error && !(blocked instanceof WebhookBlockedError)) blocked = blocked.cause;
        expect({ address, reason: (blocked as WebhookBlockedError | undefined)?.reason }).toEqual({
          address,
          reason: expect.stringMatching(/form of 127\.0\.0\.1, a loopback address$/),
        });
      }
      expect(loopback.hits).toHaveLength(0);
      // ::ffff:127.0.0.2 is judged as 127.0.0.2, which this policy allows: the delivery goes through.
      const mapped = scriptedLookup([['::ffff:127.0.0.2']]);
      const viaMapped = new Agent({ connect: guardedConnector(() => policy, mapped.lookup) });
      try {
        const before = allowedHost.hits.length;
        const url = `http://mapped.example:${allowedHost.port}/hook`;
        expect(await attemptDelivery(url, '{}', {}, { dispatcher: viaMapped })).toMatchObject({ ok: true, statusCode: 200 });
        expect(allowedHost.hits).toHaveLength(before + 1);
      } finally {
        await viaMapped.close();
      }
    } finally {
      await dispatcher.close();
    }
  });

  it('reports connection problems in its own words, never the bytes a non-HTTP service sent', async () => {
    setWebhookNetworks({ allowed: ['127.0.0.1/32'], blocked: [] });
    const banner: TcpServer = createTcpServer((socket) => {
      // Reads (and drops) the request: unread, the client's close never ends this socket, and the
      // open socket kept the jest worker from exiting after the run.
      socket.resume();
      socket.end('SSH-2.0-OpenSSH_9.6 internal-build-host\r\n');
    });
    await new Promise<void>((resolve) => banner.listen(0, '127.0.0.1', resolve));
    try {
      const spoken = await attemptDelivery(`http://127.0.0.1:${(banner.address() as AddressInfo).port}/`, '{}', {});
      expect(spoken).toMatchObject({ ok: false });
      expect(['invalid HTTP response', 'connection reset']).toContain((spoken as { error: string }).error);
      const closedPort = await new Promise<number>((resolve) => {
        const probe = createTcpServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as AddressInfo;
          probe.close(() => resolve(port));
        });
      });
      expect(await attemptDelivery(`http://127.0.0.1:${closedPort}/`, '{}', {})).toMatchObject({ ok: false, error: 'connection refused' });
    } finally {
      setWebhookNetworks(NOTHING_ALLOWED);
      // Resolves once its last connection has closed.
      await new Promise((closed) => banner.close(closed));
    }
  });
});
