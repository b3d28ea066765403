import { createServer } from 'node:net';
import pino from 'pino';
import { createWorker, type WorkerOptions } from '../../src/queue/worker';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { backends, clearDeliveries } from '../support/database';
import { useApiFixture } from '../support/http';
import { useReceiver, type Reply } from '../support/receiver';

const logger = pino({ level: 'silent' });
const MINUTE = 60_000;

type LoggedAttempt = {
  attempt: number;
  startedAt: string;
  durationMs: number;
  outcome: string;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  retryAfter: string | null;
};

/** A port on loopback that nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.each(backends)('delivery attempt log on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const receiver = useReceiver();
  let now = new Date();
  let configId: number;

  const worker = (overrides: Partial<WorkerOptions> = {}) =>
    createWorker({ database: ctx.db.prisma, secrets: ctx.api.secrets, logger, clock: () => now, ...overrides });
  /** Reports a failure; the worker's clock then stands a second later, so that its delivery is due. */
  const report = async () => {
    await ctx.api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'product', external_id: 'SKU-1', source: 'erp', error_message: 'Unknown tax class' },
    });
    now = new Date(Date.now() + 1_000);
  };
  const onlyItem = () => ctx.db.prisma.outboundQueueItem.findFirstOrThrow();
  const detail = async (id: number | string) => ctx.api.request('GET', `/api/v1/outbound-queue/${id}`);

  beforeEach(async () => {
    await clearDeliveries(ctx.db.prisma);
    ({ id: configId } = await createWebhook(ctx.db.prisma, ctx.api.secrets, {
      url: receiver.url,
      entityType: 'product',
      direction: 'to_webshop',
      secret: 'receiver-shared-secret-123',
    }));
  });

  it('logs a 500 then a 200: two rows with outcome, status, duration, body excerpt and Retry-After', async () => {
    receiver.answer = (index) =>
      index === 0
        ? { status: 500, headers: { 'retry-after': '120', 'content-type': 'text/plain' }, body: 'database\u0000 down' }
        : { status: 200, body: '{"received":true}' };
    await report();
    const w = worker();
    const firstStart = now;
    expect(await w.runOnce()).toBe(1);
    const pending = await onlyItem();
    expect(pending).toMatchObject({ status: 'pending', lastStatusCode: 500, lastError: 'HTTP 500' });
    // Retry-After (2 min) pushed the second attempt past the schedule's 1 minute.
    expect(pending.nextAttemptAt.getTime()).toBe(firstStart.getTime() + 2 * MINUTE);

    now = new Date(firstStart.getTime() + 2 * MINUTE);
    expect(await w.runOnce()).toBe(1);
    const item = await onlyItem();
    expect(item.status).toBe('completed');

    const res = await detail(item.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: item.id,
      status: 'completed',
      attempts: 2,
      payload: { event: 'sync_failure', external_id: 'SKU-1' },
    });
    const log = res.body.attemptLog as LoggedAttempt[];
    expect(log).toHaveLength(2);
    const [second, first] = log; // newest first
    expect(first).toEqual({
      attempt: 1,
      startedAt: firstStart.toISOString(),
      durationMs: expect.any(Number),
      outcome: 'http_error',
      statusCode: 500,
      error: 'HTTP 500',
      responseBody: 'database down', // NUL removed: PostgreSQL text cannot hold it
      retryAfter: '120',
    });
    expect(second).toEqual({
      attempt: 2,
      startedAt: now.toISOString(),
      durationMs: expect.any(Number),
      outcome: 'success',
      statusCode: 200,
      error: null,
      responseBody: '{"received":true}',
      retryAfter: null,
    });
    for (const a of log) expect(Number.isInteger(a.durationMs) && a.durationMs >= 0 && a.durationMs < 60_000).toBe(true);

    // The same log over GraphQL.
    const gql = await ctx.api.graphql('query($id: Int!) { outboundQueueItem(id: $id) { id attemptLog { attempt outcome statusCode } } }', {
      id: item.id,
    });
    expect(gql.body.data.outboundQueueItem.attemptLog).toEqual([
      { attempt: 2, outcome: 'success', statusCode: 200 },
      { attempt: 1, outcome: 'http_error', statusCode: 500 },
    ]);
  });

  it('keeps the first 4 KB of a long answer, cut at a character boundary', async () => {
    receiver.answer = () => ({ status: 503, body: `${'x'.repeat(4095)}é${'y'.repeat(10_000)}` });
    await report();
    await worker().runOnce();
    const { body } = await detail((await onlyItem()).id);
    expect(body.attemptLog[0].responseBody).toBe('x'.repeat(4095)); // é straddles byte 4096: left out whole
  });

  it('names each outcome: timeout, network_error, gone, blocked, and a removed configuration', async () => {
    const outcomes: Array<Partial<LoggedAttempt>> = [];
    const attemptOnce = async (prepare: () => Promise<void>, options: Partial<WorkerOptions> = {}) => {
      await ctx.db.prisma.outboundQueueItem.deleteMany();
      await report();
      await prepare();
      await worker(options).runOnce();
      const { body } = await detail((await onlyItem()).id);
      outcomes.push(body.attemptLog[0]);
    };
    const setUrl = (url: string) => ctx.db.prisma.webhookConfig.update({ where: { id: configId }, data: { url } });

    receiver.answer = () => new Promise<Reply>(() => undefined); // never answers
    await attemptOnce(async () => undefined, { timeoutMs: 100 });
    receiver.answer = () => ({ status: 410, body: 'gone' });
    await attemptOnce(async () => undefined);
    await attemptOnce(async () => void (await setUrl(`http://127.0.0.1:${await closedPort()}/hook`)));
    // Stored directly: the API refuses such a URL, a configuration from before the guard may have it.
    await attemptOnce(async () => void (await setUrl('http://169.254.169.254/latest/meta-data')));
    await attemptOnce(async () => void (await ctx.db.prisma.webhookConfig.update({ where: { id: configId }, data: { active: false } })));

    expect(outcomes).toEqual([
      expect.objectContaining({ outcome: 'timeout', statusCode: null, error: 'timeout', responseBody: null }),
      expect.objectContaining({ outcome: 'gone', statusCode: 410, error: 'HTTP 410', responseBody: 'gone' }),
      expect.objectContaining({ outcome: 'network_error', statusCode: null, error: 'connection refused', responseBody: null }),
      expect.objectContaining({ outcome: 'blocked', statusCode: null, error: expect.stringMatching(/^blocked: /), durationMs: 0 }),
      expect.objectContaining({ outcome: 'gone', statusCode: null, error: 'webhook configuration disabled', durationMs: 0 }),
    ]);
  });

  it('answers 404 for an unknown item and 400 for an id that is not an integer', async () => {
    const missing = await detail(999_999);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const bad = await detail('abc');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ field: 'id' })]);
    // The fixed routes beside {id} still answer.
    expect((await ctx.api.request('GET', '/api/v1/outbound-queue/stats')).status).toBe(200);
  });

  it('reads the attempt logs of a page of items in a fixed number of queries', async () => {
    receiver.answer = () => ({ status: 500 });
    const queriesForPage = async (items: number) => {
      await ctx.db.prisma.outboundQueueItem.deleteMany();
      for (let i = 0; i < items; i++) await report();
      await worker().runOnce();
      const before = ctx.db.queryCount();
      const res = await ctx.api.graphql('{ outboundQueue(limit: 100) { payload { id attemptLog { outcome } } } }');
      expect(res.body.data.outboundQueue.payload).toHaveLength(items);
      expect(res.body.data.outboundQueue.payload[0].attemptLog).toEqual([{ outcome: 'http_error' }]);
      return ctx.db.queryCount() - before;
    };
    expect(await queriesForPage(12)).toBe(await queriesForPage(2));
  });
});
