import { createHmac } from 'node:crypto';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../src/generated/prisma/client';
import { createWorker, type WorkerOptions } from '../../src/queue/worker';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { backends, clearDeliveries } from '../support/database';
import { useApiFixture } from '../support/http';
import { holdingFirst, startReceiver, useReceiver, type Reply } from '../support/receiver';
import { waitFor } from '../support/wait-for';

const SECRET = 'receiver-shared-secret-123';
const MINUTE = 60_000;
const logger = pino({ level: 'silent' });

describe.each(backends)('webhook delivery on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const receiver = useReceiver();
  let now: Date;

  const worker = (overrides: Partial<WorkerOptions> = {}) =>
    createWorker({ database: ctx.db.prisma, secrets: ctx.api.secrets, logger, clock: () => now, ...overrides });
  /** Reports a failure; the worker's clock then stands a second on, so the delivery is due however slow the machine. */
  const report = async () => {
    const res = await ctx.api.request('POST', '/api/v1/failures', {
      body: {
        entity_type: 'product',
        external_id: 'SKU-9',
        source: 'erp',
        error_message: 'Unknown tax class',
        error_details: [{ field: 'tax', message: 'unknown' }],
      },
    });
    now = new Date(Date.now() + 1_000);
    return res;
  };
  const onlyItem = async () => ctx.db.prisma.outboundQueueItem.findFirstOrThrow();

  beforeEach(async () => {
    await clearDeliveries(ctx.db.prisma);
    now = new Date(Date.now() + 1_000);
    await createWebhook(ctx.db.prisma, ctx.api.secrets, {
      url: receiver.url,
      entityType: 'product',
      direction: 'to_webshop',
      secret: SECRET,
    });
  });

  it('POSTs the SPEC 6.2 payload as JSON, signed with HMAC-SHA256 and with Standard Webhooks headers', async () => {
    await report();
    expect(await worker().runOnce()).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.headers['content-type']).toBe('application/json');
    const failure = await ctx.db.prisma.syncFailure.findFirstOrThrow();
    expect(JSON.parse(request!.body)).toEqual({
      event: 'sync_failure',
      failure_id: failure.id,
      entity_type: 'product',
      external_id: 'SKU-9',
      source: 'erp',
      error_message: 'Unknown tax class',
      error_details: [{ field: 'tax', message: 'unknown' }],
      failed_at: failure.createdAt.toISOString(),
    });
    // An independent HMAC over the exact bytes received.
    expect(request!.headers['x-webhook-signature']).toBe(createHmac('sha256', SECRET).update(request!.body).digest('hex'));
    // The standard library, as a receiver would use it (its timestamp tolerance is checked against real time).
    const verified = new Webhook(Buffer.from(SECRET).toString('base64')).verify(request!.body, {
      'webhook-id': String(request!.headers['webhook-id']),
      'webhook-timestamp': String(request!.headers['webhook-timestamp']),
      'webhook-signature': String(request!.headers['webhook-signature']),
    });
    expect(verified).toEqual(JSON.parse(request!.body));
    expect(() =>
      new Webhook(Buffer.from('some-other-secret-xx').toString('base64')).verify(request!.body, {
        'webhook-id': String(request!.headers['webhook-id']),
        'webhook-timestamp': String(request!.headers['webhook-timestamp']),
        'webhook-signature': String(request!.headers['webhook-signature']),
      }),
    ).toThrow();
    expect(await onlyItem()).toMatchObject({ status: 'completed', attempts: 1, lastStatusCode: 200, lastError: null });
  });

  it('retries on the SPEC 6.3 schedule with a stable webhook-id, then gives up after attempt 6', async () => {
    receiver.answer = () => ({ status: 500 });
    await report();
    const w = worker();
    const start = now.getTime();
    const expectedGaps = [1, 5, 30, 120, 480].map((m) => m * MINUTE);
    let elapsed = 0;
    expect(await w.runOnce()).toBe(1);
    for (const gap of expectedGaps) {
      const item = await onlyItem();
      expect(item.status).toBe('pending');
      elapsed += gap;
      expect(item.nextAttemptAt.getTime()).toBe(start + elapsed);
      now = new Date(start + elapsed - 1);
      expect(await w.runOnce()).toBe(0); // not due a millisecond early
      now = new Date(start + elapsed);
      expect(await w.runOnce()).toBe(1);
    }
    const item = await onlyItem();
    expect(item).toMatchObject({ status: 'failed', attempts: 6, lastStatusCode: 500 });
    expect(item.lastError).toMatch(/gave up after 6 attempts/);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(receiver.requests).toHaveLength(6);
  });

  it('stops at once on 410 Gone', async () => {
    receiver.answer = () => ({ status: 410 });
    await report();
    await worker().runOnce();
    expect(await onlyItem()).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 410 });
  });

  it('lets Retry-After delay the next attempt but never bring it forward', async () => {
    receiver.answer = () => ({ status: 503, headers: { 'retry-after': '600' } });
    await report();
    await worker().runOnce();
    expect((await onlyItem()).nextAttemptAt.getTime()).toBe(now.getTime() + 10 * MINUTE);

    await ctx.db.prisma.outboundQueueItem.deleteMany();
    receiver.answer = () => ({ status: 503, headers: { 'retry-after': '5' } });
    await report();
    await worker().runOnce();
    expect((await onlyItem()).nextAttemptAt.getTime()).toBe(now.getTime() + MINUTE);
  });

  it('abandons an item whose next attempt would fall more than 24 hours after the first', async () => {
    receiver.answer = () => ({ status: 503, headers: { 'retry-after': String(25 * 3600) } });
    await report();
    await worker().runOnce();
    const item = await onlyItem();
    expect(item.status).toBe('failed');
    expect(item.lastError).toMatch(/abandoned/);
  });

  it('counts a timeout as a failed attempt', async () => {
    receiver.answer = () => new Promise<Reply>(() => undefined); // never answers
    await report();
    await worker({ timeoutMs: 100 }).runOnce();
    expect(await onlyItem()).toMatchObject({ status: 'pending', attempts: 1, lastError: 'timeout' });
  });

  it('fails deliveries to a disabled or removed configuration, which retry-failed can send again later', async () => {
    await report();
    await ctx.db.prisma.webhookConfig.updateMany({ data: { active: false } });
    await worker().runOnce();
    expect(await onlyItem()).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/disabled/) });
    expect(receiver.requests).toHaveLength(0);

    await ctx.db.prisma.webhookConfig.updateMany({ data: { active: true } });
    expect((await ctx.api.request('POST', '/api/v1/outbound-queue/retry-failed')).body).toEqual({ retried: 1 });
    now = new Date(Date.now() + 1_000);
    await worker().runOnce();
    expect(await onlyItem()).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it("lets another worker complete an item whose worker died mid-delivery, and ignores the dead one's late result", async () => {
    const { answer, release: releaseFirst } = holdingFirst();
    receiver.answer = answer;
    await report();
    const dying = worker({ leaseMs: 60_000 }).runOnce();
    await waitFor(() => receiver.requests.length === 1, 60_000, 'the first delivery under way');
    expect((await onlyItem()).status).toBe('processing');

    now = new Date(now.getTime() + 61_000); // the lease has run out
    expect(await worker().runOnce()).toBe(1);
    expect(await onlyItem()).toMatchObject({ status: 'completed', attempts: 2 });

    releaseFirst({ status: 500 }); // the first worker's attempt ends after all
    await dying;
    expect(await onlyItem()).toMatchObject({ status: 'completed' });
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([
      receiver.requests[0]!.headers['webhook-id'],
      receiver.requests[0]!.headers['webhook-id'],
    ]);
  });

  it('sends the first attempt as soon as the failure is stored, not at the next poll', async () => {
    let claims = 0;
    // Polling once an hour: after its first (empty) claim only the wake-up can bring a delivery.
    const w = worker({ clock: undefined, pollIntervalMs: 3_600_000, events: ctx.api.events, onClaim: () => claims++ });
    w.start();
    try {
      await waitFor(() => claims === 1, 30_000, 'the first claim');
      await report();
      // Within a minute, not an hour: the report woke the worker.
      await waitFor(() => receiver.requests.length === 1, 60_000, 'the delivery');
    } finally {
      await w.stop();
    }
  });
});

describe.each(backends)('two workers on one database on %s', (backend) => {
  const ctx = useApiFixture(backend);

  it('deliver each of 1000 items exactly once', async () => {
    const seen = new Map<string, number>();
    const receiver = await startReceiver((request) => {
      const id = String(request.headers['webhook-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      return { status: 200 };
    });
    const config = await createWebhook(ctx.db.prisma, ctx.api.secrets, {
      url: receiver.url,
      entityType: 'partner',
      direction: 'to_erp',
      secret: SECRET,
    });
    await ctx.db.prisma.$executeRawUnsafe(
      `INSERT INTO outbound_queue_items (message_id, payload, webhook_config_id)
       SELECT 'msg_two_workers_' || g, '{"event":"sync_failure"}'::jsonb, $1 FROM generate_series(1, 1000) AS g`,
      config.id,
    );
    // Two replicas: separate clients and connection pools on the same database.
    const replicas = [0, 1].map(() => new PrismaClient({ adapter: new PrismaPg({ connectionString: ctx.db.url }) }));
    const workers = replicas.map((prisma) =>
      createWorker({ database: prisma, secrets: ctx.api.secrets, logger, pollIntervalMs: 20, batchSize: 25 }),
    );
    workers.forEach((w) => w.start());
    try {
      await waitFor(
        async () => (await ctx.db.prisma.outboundQueueItem.count({ where: { status: 'completed' } })) === 1000,
        150_000,
        '1,000 items completed',
        { intervalMs: 100 },
      );
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await Promise.all(replicas.map((p) => p.$disconnect()));
      await receiver.close();
    }
    expect(await ctx.db.prisma.outboundQueueItem.count({ where: { status: 'completed' } })).toBe(1000);
    expect(seen.size).toBe(1000);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
  }, 180_000);
});
