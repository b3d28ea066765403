import { createClient } from 'graphql-ws';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import WebSocket from 'ws';
import { createToken } from '../../src/auth/token.service';
import { createSecretBox } from '../../src/deliveries/secret-box';
import { createWorker, type WorkerOptions } from '../../src/queue/worker';
import { recordResults, type AttemptResult } from '../../src/queue/sql/record-results';
import { backends, clearDeliveries } from '../support/database';
import { graphqlData, startTestServer, useApiFixture } from '../support/http';
import { probeEvent, sseSubscriber, SUBSCRIPTION, type Streamed } from '../support/operational-events';
import { useReceiver } from '../support/receiver';
import { untilLive, waitFor, waitForValue } from '../support/wait-for';

const HOUR = 3_600_000;
/** Just after what the database stamps as now: items reported so far are due. */
const soon = () => new Date(Date.now() + 1_000);
const logger = pino({ level: 'silent' });
const HEALTH =
  'query($id: Int!) { webhookConfig(id: $id) { active health { state lastSuccessAt failingSince consecutiveFailedItems autoDisabledAt } } }';

describe.each(backends)('endpoint health, auto-disable and operational events on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const receiver = useReceiver();
  let adminToken: string;
  let now: Date;
  let webhookId: number;

  const asAdmin = (query: string, variables?: Record<string, unknown>) => graphqlData(ctx.api, adminToken, query, variables);
  const health = async () => (await asAdmin(HEALTH, { id: webhookId })).webhookConfig;
  // The worker as `serve` wires it: its operational events go to the event hub.
  const worker = (overrides: Partial<WorkerOptions> = {}) =>
    createWorker({
      database: ctx.db.prisma,
      secrets: ctx.api.secrets,
      logger,
      clock: () => now,
      onOperationalEvents: (events) => events.forEach(ctx.api.events.publishOperational),
      ...overrides,
    });
  const report = (externalId: string) =>
    ctx.api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'product', external_id: externalId, source: 'erp', error_message: 'Unknown tax class' },
    });
  /** Runs the worker at the current clock; returns how many items it handled. */
  const runAt = (at: Date, options?: Partial<WorkerOptions>) => {
    now = at;
    return worker(options).runOnce();
  };

  beforeAll(async () => {
    adminToken = (await createToken(ctx.db.prisma, `admin-health-${backend}`, 'admin')).token;
  });
  beforeEach(async () => {
    await clearDeliveries(ctx.db.prisma);
    // The worker's clock, ahead of the database's: an item queued later in the test (at the
    // database's now()) is due by it however slowly the test runs (a loaded CI machine).
    now = new Date(Date.now() + 60_000);
    const created = await asAdmin(
      `mutation($url: String!) { createWebhookConfig(url: $url, entityType: product, direction: to_webshop) { id } }`,
      {
        url: receiver.url,
      },
    );
    webhookId = created.createWebhookConfig.id;
  });

  it('is healthy at first, failing after a failed attempt, healthy again after a success; a recovery is an event', async () => {
    expect((await health()).health).toEqual({
      state: 'healthy',
      lastSuccessAt: null,
      failingSince: null,
      consecutiveFailedItems: 0,
      autoDisabledAt: null,
    });
    const subscriber = await sseSubscriber(ctx.api, adminToken);
    try {
      receiver.answer = (index) => (index === 0 ? { status: 500 } : { status: 200 });
      await report('SKU-1');
      const start = soon();
      expect(await runAt(start)).toBe(1);
      expect((await health()).health).toMatchObject({
        state: 'failing',
        failingSince: start.toISOString(),
        lastSuccessAt: null,
        consecutiveFailedItems: 0,
      });

      const second = new Date(start.getTime() + 61_000);
      expect(await runAt(second)).toBe(1);
      expect((await health()).health).toMatchObject({ state: 'healthy', failingSince: null, lastSuccessAt: second.toISOString() });

      const item = await ctx.db.prisma.outboundQueueItem.findFirstOrThrow();
      const event = await waitForValue(
        () => subscriber.events.find((e) => e.data?.operationalEvents.name === 'delivery.recovered'),
        30_000,
        'delivery.recovered',
      );
      expect(event.data!.operationalEvents).toMatchObject({
        name: 'delivery.recovered',
        webhookId,
        url: receiver.url,
        itemId: item.id,
        failureId: item.failureId,
        attempts: 2,
        error: null,
      });
      // A first-attempt success is no news.
      await report('SKU-2');
      expect(await runAt(new Date(second.getTime() + 1_000))).toBe(1);
      expect(subscriber.events.filter((e) => e.data?.operationalEvents.name === 'delivery.recovered')).toHaveLength(1);
    } finally {
      await subscriber.close();
    }
  });

  it('counts abandoned deliveries and streams delivery.failed over graphql-ws', async () => {
    const client = createClient({
      url: `${ctx.api.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${adminToken}` },
      retryAttempts: 0,
    });
    const streamed: Streamed[] = [];
    let failed: unknown;
    client.subscribe<{ operationalEvents: Streamed }>(
      { query: SUBSCRIPTION, variables: { events: ['delivery_failed'] } },
      { next: (value) => void streamed.push(value.data!.operationalEvents), error: (error) => (failed = error), complete: () => undefined },
    );
    // The events of this configuration, not the probes that tell when the subscription is live.
    const received = () => streamed.filter((e) => !e.url?.startsWith('probe:'));
    try {
      await untilLive(
        (n) => ctx.api.events.publishOperational(probeEvent(n)),
        () => streamed.length > 0 || failed !== undefined,
      );
      expect(failed).toBeUndefined();
      receiver.answer = () => ({ status: 410 }); // 410 abandons at once
      await report('SKU-GONE-1');
      await report('SKU-GONE-2');
      expect(await runAt(soon())).toBe(2);
      expect((await health()).health).toMatchObject({ state: 'failing', consecutiveFailedItems: 2 });
      await waitFor(() => received().length === 2, 30_000, 'two delivery_failed events');
      expect(received().map((e) => e.event)).toEqual(['delivery_failed', 'delivery_failed']);
      expect(received()[0]).toMatchObject({ webhookId, attempts: 1, statusCode: 410, error: expect.stringContaining('HTTP 410') });
    } finally {
      await client.dispose();
    }
  });

  it(`disables a configuration failing ${120} hours (injected clock), tells subscribers, and delivers nothing more until enabled`, async () => {
    const subscriber = await sseSubscriber(ctx.api, adminToken, { events: ['webhook_disabled'] });
    try {
      receiver.answer = () => ({ status: 503 });
      await report('SKU-A');
      const start = soon();
      expect(await runAt(start)).toBe(1);
      // 119 hours on, still failing: not yet.
      await report('SKU-B');
      expect(await runAt(new Date(start.getTime() + 119 * HOUR))).toBeGreaterThanOrEqual(1);
      expect((await health()).active).toBe(true);

      await report('SKU-C');
      const disabledAt = new Date(start.getTime() + 120 * HOUR + 1_000);
      expect(await runAt(disabledAt)).toBeGreaterThanOrEqual(1);
      expect(await health()).toEqual({
        active: false,
        health: {
          state: 'disabled',
          lastSuccessAt: null,
          failingSince: start.toISOString(),
          consecutiveFailedItems: expect.any(Number),
          autoDisabledAt: disabledAt.toISOString(),
        },
      });
      const event = await waitForValue(() => subscriber.events[0], 30_000, 'webhook.disabled');
      expect(event.data!.operationalEvents).toMatchObject({
        event: 'webhook_disabled',
        name: 'webhook.disabled',
        webhookId,
        url: receiver.url,
        failingSince: start.toISOString(),
        at: disabledAt.toISOString(),
      });
      expect(subscriber.events).toHaveLength(1);

      // Disabled: a new failure queues nothing for it, and the pending retries are not sent.
      const sent = receiver.requests.length;
      const queued = await ctx.db.prisma.outboundQueueItem.count();
      expect((await report('SKU-D')).status).toBe(201);
      expect(await ctx.db.prisma.outboundQueueItem.count()).toBe(queued);
      await runAt(new Date(disabledAt.getTime() + 24 * HOUR));
      expect(receiver.requests).toHaveLength(sent);

      // Enabling it is an update, and starts its health afresh.
      await asAdmin('mutation($id: Int!) { updateWebhookConfig(id: $id, active: true) { id } }', { id: webhookId });
      expect((await health()).health).toMatchObject({
        state: 'healthy',
        failingSince: null,
        consecutiveFailedItems: 0,
        autoDisabledAt: null,
      });
      receiver.answer = () => ({ status: 200 });
      await report('SKU-E');
      expect(await runAt(new Date(disabledAt.getTime() + 25 * HOUR))).toBe(1);
      expect(receiver.requests.length).toBe(sent + 1);
      expect((await health()).health.state).toBe('healthy');
    } finally {
      await subscriber.close();
    }
  });

  it('never disables with WEBHOOK_DISABLE_AFTER_HOURS=0', async () => {
    receiver.answer = () => ({ status: 500 });
    await report('SKU-X');
    const start = soon();
    await runAt(start, { disableAfterMs: 0 });
    await report('SKU-Y');
    await runAt(new Date(start.getTime() + 1_000 * HOUR), { disableAfterMs: 0 });
    expect(await health()).toMatchObject({ active: true, health: { state: 'failing' } });
  });

  it('does not count test events', async () => {
    receiver.answer = () => ({ status: 500 });
    const tested = await ctx.api.request('POST', `/api/v1/webhooks/${webhookId}/test`, { token: adminToken });
    expect(tested.body).toMatchObject({ outcome: 'failed', statusCode: 500 });
    expect((await health()).health).toMatchObject({ state: 'healthy', failingSince: null, consecutiveFailedItems: 0 });
  });

  it('still lists a configuration whose secret the current ENCRYPTION_KEY cannot open', async () => {
    // Another key, as after a lost or changed ENCRYPTION_KEY: the secret signs nothing, the list still answers.
    const otherKey = await startTestServer(ctx.db, { secrets: createSecretBox(randomBytes(32)) });
    try {
      const list = await otherKey.request('GET', '/api/v1/webhooks', { token: adminToken });
      expect(list.status).toBe(200);
      expect(list.body).toEqual([expect.objectContaining({ id: webhookId, signatureSwitchAt: null })]);
    } finally {
      await otherKey.close();
    }
  });

  it('shows health in the REST webhook responses, for admins only; the subscription is admin-only too', async () => {
    const list = await ctx.api.request('GET', '/api/v1/webhooks', { token: adminToken });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      expect.objectContaining({
        id: webhookId,
        url: receiver.url,
        health: expect.objectContaining({ state: 'healthy', consecutiveFailedItems: 0 }),
      }),
    ]);
    expect(JSON.stringify(list.body)).not.toMatch(/secret"?:\s*"/);
    const one = await ctx.api.request('GET', `/api/v1/webhooks/${webhookId}`, { token: adminToken });
    expect(one.body).toMatchObject({ id: webhookId, health: { state: 'healthy' } });
    expect((await ctx.api.request('GET', '/api/v1/webhooks/999999', { token: adminToken })).status).toBe(404);
    expect((await ctx.api.request('GET', '/api/v1/webhooks')).status).toBe(403);

    const refused = await fetch(`${ctx.api.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.api.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: SUBSCRIPTION }),
    });
    expect(await refused.text()).toContain('FORBIDDEN');
  });

  it('keeps health right while two workers record results for the same configurations at once', async () => {
    const urls = [receiver.url, `${receiver.url}?b`, `${receiver.url}?c`];
    for (const url of urls.slice(1))
      await asAdmin(`mutation($url: String!) { createWebhookConfig(url: $url, entityType: product, direction: to_webshop) { id } }`, {
        url,
      });
    for (let i = 0; i < 20; i++) await report(`SKU-C${i}`);
    expect(await ctx.db.prisma.outboundQueueItem.count()).toBe(60);
    let tick = soon().getTime();
    const clock = () => new Date((tick += 1)); // distinct, increasing result times
    const drain = async () => {
      const w = worker({ clock, batchSize: 7 });
      while ((await w.runOnce()) > 0);
    };
    await Promise.all([drain(), drain()]);
    const items = await ctx.db.prisma.outboundQueueItem.findMany();
    expect(items.every((i) => i.status === 'completed')).toBe(true);
    for (const config of await ctx.db.prisma.webhookConfig.findMany()) {
      const newest = Math.max(...items.filter((i) => i.webhookConfigId === config.id).map((i) => i.completedAt!.getTime()));
      expect({ id: config.id, lastSuccessAt: config.lastSuccessAt?.getTime(), failingSince: config.failingSince }).toEqual({
        id: config.id,
        lastSuccessAt: newest,
        failingSince: null,
      });
    }
  });

  it("writes a batch's results, attempt log and configuration health in one statement", async () => {
    await report('SKU-ONE-STATEMENT');
    const statements: string[] = [];
    const database: WorkerOptions['database'] = {
      $queryRaw: (strings: TemplateStringsArray, ...values: unknown[]) => {
        statements.push(strings.join('?'));
        return ctx.db.prisma.$queryRaw(strings, ...values);
      },
    };
    const at = soon();
    expect(await runAt(at, { database })).toBe(1);
    expect(statements).toHaveLength(2); // the claim; the results with their log and health
    expect(await ctx.db.prisma.outboundQueueItem.findFirstOrThrow({ include: { attemptLog: true } })).toMatchObject({
      status: 'completed',
      attemptLog: [{ outcome: 'success' }],
    });
    expect((await health()).health).toMatchObject({ state: 'healthy', lastSuccessAt: at.toISOString() });
  });

  it('keeps results that land out of order straight (concurrent workers): an older result never undoes a newer one', async () => {
    await report('SKU-1');
    await report('SKU-2');
    await report('SKU-3');
    const [a, b, c] = await ctx.db.prisma.outboundQueueItem.findMany({ orderBy: { id: 'asc' } });
    const t = (seconds: number) => new Date(now.getTime() + seconds * 1_000).toISOString();
    const result = (id: number, at: string, status: AttemptResult['status']): AttemptResult => {
      const ok = status === 'completed';
      return {
        id,
        lease_token: 'lease-of-this-test',
        status,
        at,
        status_code: ok ? 200 : 500,
        error: ok ? null : 'HTTP 500',
        next_attempt_at: status === 'pending' ? t(3600) : null,
        counted: true,
        attempt: 1,
        started_at: at,
        duration_ms: 1,
        outcome: ok ? 'success' : 'http_error',
        http_status: ok ? 200 : 500,
        attempt_error: ok ? null : 'HTTP 500',
        response_body: null,
        retry_after: null,
      };
    };
    /** Writes results as a worker holding their leases would. */
    const record = async (results: AttemptResult[]) => {
      await ctx.db.prisma.outboundQueueItem.updateMany({
        where: { id: { in: results.map((r) => r.id) } },
        data: { status: 'processing', leaseToken: 'lease-of-this-test' },
      });
      const { written } = await recordResults(ctx.db.prisma, results, { now: new Date(now), disableAfterMs: 120 * HOUR });
      expect(written).toHaveLength(results.length);
    };
    // A success at t+10 is written before a failure at t+5.
    await record([result(a!.id, t(10), 'completed')]);
    await record([result(b!.id, t(5), 'pending')]);
    expect((await health()).health).toMatchObject({ state: 'healthy', lastSuccessAt: t(10) });
    // A failure at t+20 is written before a success at t+15: still failing since t+20.
    await record([result(b!.id, t(20), 'failed')]);
    await record([result(a!.id, t(15), 'completed')]);
    expect((await health()).health).toMatchObject({
      state: 'failing',
      lastSuccessAt: t(15),
      failingSince: t(20),
      consecutiveFailedItems: 1,
    });
    // In one batch: failure, then success, then failure again.
    await record([result(b!.id, t(40), 'failed'), result(a!.id, t(30), 'completed'), result(c!.id, t(25), 'pending')]);
    expect((await health()).health).toMatchObject({
      state: 'failing',
      lastSuccessAt: t(30),
      failingSince: t(40),
      consecutiveFailedItems: 1,
    });
  });
});
