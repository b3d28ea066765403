import { createToken } from '../../src/auth/token.service';
import { backends } from '../support/database';
import { useApiFixture } from '../support/http';
import type { QueueStatus } from '../../src/generated/prisma/enums';

describe.each(backends)('outbound queue over REST on %s', (backend) => {
  const ctx = useApiFixture(backend);

  async function seed(): Promise<number[]> {
    await ctx.db.prisma.outboundQueueItem.deleteMany();
    const statuses: QueueStatus[] = ['pending', 'processing', 'completed', 'failed', 'failed', 'failed'];
    const ids: number[] = [];
    for (const [i, status] of statuses.entries()) {
      const item = await ctx.db.prisma.outboundQueueItem.create({
        data: {
          status,
          attempts: i === 5 ? 2 : status === 'failed' ? 6 : 1,
          messageId: `msg_${backend}_${i}`,
          payload: { event: 'sync_failure' },
        },
      });
      ids.push(item.id);
    }
    return ids;
  }

  it('counts items per status and lists them with a status filter', async () => {
    await seed();
    expect((await ctx.api.request('GET', '/api/v1/outbound-queue/stats')).body).toEqual({
      pending: 1,
      processing: 1,
      completed: 1,
      failed: 3,
      retrying: 0,
    });
    const failed = await ctx.api.request('GET', '/api/v1/outbound-queue?status=failed&limit=2');
    expect(failed.body.meta).toEqual({ total: 3, limit: 2, offset: 0 });
    expect(failed.body.payload[0]).toMatchObject({ status: 'failed', event: 'sync_failure', payload: { event: 'sync_failure' } });
    expect((await ctx.api.request('GET', '/api/v1/outbound-queue?status=lost')).status).toBe(400);
  });

  it('counts and lists the pending items retrying after a failed attempt, and finds one by webhook-id', async () => {
    const ids = await seed();
    await ctx.db.prisma.outboundQueueItem.update({ where: { id: ids[0]! }, data: { lastError: 'HTTP 503', lastStatusCode: 503 } });
    expect((await ctx.api.request('GET', '/api/v1/outbound-queue/stats')).body).toMatchObject({ pending: 1, failed: 3, retrying: 1 });
    const retrying = await ctx.api.request('GET', '/api/v1/outbound-queue?retrying=true');
    expect(retrying.body.payload.map((i: { id: number }) => i.id)).toEqual([ids[0]]);
    const byId = await ctx.api.request('GET', `/api/v1/outbound-queue?messageId=msg_${backend}_3`);
    expect(byId.body.payload.map((i: { id: number }) => i.id)).toEqual([ids[3]]);
    expect((await ctx.api.request('GET', '/api/v1/outbound-queue?messageId=msg_none')).body.meta.total).toBe(0);
  });

  it("lists one failure's deliveries with their attempts (failureId filter)", async () => {
    await seed();
    const failure = await ctx.db.prisma.syncFailure.create({
      data: { entityType: 'product', source: 'erp', externalId: 'SKU-7', errorMessage: 'Unknown tax code' },
    });
    const other = await ctx.db.prisma.syncFailure.create({
      data: { entityType: 'product', source: 'erp', externalId: 'SKU-8', errorMessage: 'Unknown tax code' },
    });
    const mine = await ctx.db.prisma.outboundQueueItem.create({
      data: { status: 'completed', messageId: `msg_${backend}_mine`, payload: { event: 'sync_failure' }, failureId: failure.id },
    });
    await ctx.db.prisma.outboundQueueItem.create({
      data: { status: 'failed', messageId: `msg_${backend}_other`, payload: { event: 'sync_failure' }, failureId: other.id },
    });
    await ctx.db.prisma.deliveryAttempt.create({
      data: { itemId: mine.id, attempt: 1, startedAt: new Date(), durationMs: 12, outcome: 'success', statusCode: 200 },
    });

    const rest = await ctx.api.request('GET', `/api/v1/outbound-queue?failureId=${failure.id}`);
    expect(rest.status).toBe(200);
    expect(rest.body.meta.total).toBe(1);
    expect(rest.body.payload).toEqual([
      expect.objectContaining({ id: mine.id, failureId: failure.id, attemptLog: [expect.objectContaining({ statusCode: 200 })] }),
    ]);
    const gql = await ctx.api.graphql(
      `{ outboundQueue(failureId: ${failure.id}, status: failed) { meta { total } } all: outboundQueue(failureId: ${other.id}) { payload { id failureId } } }`,
    );
    expect(gql.body.data.outboundQueue.meta.total).toBe(0);
    expect(gql.body.data.all.payload).toEqual([{ id: expect.any(Number), failureId: other.id }]);
    expect((await ctx.api.request('GET', '/api/v1/outbound-queue?failureId=abc')).status).toBe(400);
  });

  it('retries one failed item (409 otherwise, 404 when unknown)', async () => {
    const ids = await seed();
    const retried = await ctx.api.request('POST', `/api/v1/outbound-queue/${ids[3]}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: ids[3], status: 'pending', attempts: 0 });
    const notFailed = await ctx.api.request('POST', `/api/v1/outbound-queue/${ids[0]}/retry`);
    expect(notFailed.status).toBe(409);
    expect(notFailed.body.error.code).toBe('CONFLICT');
    expect((await ctx.api.request('POST', '/api/v1/outbound-queue/999999/retry')).status).toBe(404);
  });

  it('retries every failed item below maxAttempts, given as query parameter or body field', async () => {
    await seed();
    expect((await ctx.api.request('POST', '/api/v1/outbound-queue/retry-failed?maxAttempts=6')).body).toEqual({ retried: 1 });
    expect((await ctx.api.request('POST', '/api/v1/outbound-queue/retry-failed', { body: { maxAttempts: 7 } })).body).toEqual({
      retried: 2,
    });
    await seed();
    expect((await ctx.api.request('POST', '/api/v1/outbound-queue/retry-failed')).body).toEqual({ retried: 3 });
    expect((await ctx.api.request('POST', '/api/v1/outbound-queue/retry-failed', { body: { maxAttempts: 0 } })).status).toBe(400);
    expect((await ctx.api.request('POST', '/api/v1/outbound-queue/retry-failed', { body: { maxAttempts: 'x' } })).status).toBe(400);
  });

  it('lets only admin tokens manage webhook configurations, and never shows secrets', async () => {
    const create = `mutation { createWebhookConfig(url: "http://127.0.0.1:9/h", entityType: product, direction: to_erp, secret: "sixteen-chars-secret") { id url active } }`;
    const denied = await ctx.api.graphql(create);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const { token } = await createToken(ctx.db.prisma, `admin-${backend}`, 'admin');
    const asAdmin = (query: string) => ctx.api.request('POST', '/graphql', { token, body: { query } });
    const created = await asAdmin(create);
    expect(created.body.data.createWebhookConfig).toMatchObject({ url: 'http://127.0.0.1:9/h', active: true });
    const stored = await ctx.db.prisma.webhookConfig.findFirstOrThrow();
    expect(stored.secretEncrypted).not.toContain('sixteen-chars-secret');
    expect(ctx.api.secrets.decrypt(stored.secretEncrypted)).toBe('sixteen-chars-secret');

    const short = await asAdmin(
      `mutation { createWebhookConfig(url: "ftp://x", entityType: product, direction: to_erp, secret: "short") { id } }`,
    );
    expect(short.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(short.body.errors[0].extensions.details.map((d: { field: string }) => d.field).sort()).toEqual(['secret', 'url']);

    const id = created.body.data.createWebhookConfig.id;
    expect(
      (await asAdmin(`mutation { updateWebhookConfig(id: ${id}, active: false) { active } }`)).body.data.updateWebhookConfig.active,
    ).toBe(false);
    const list = await asAdmin('{ webhookConfigs { id direction } }');
    expect(list.text).not.toContain('secret');
    await asAdmin(`mutation { removeWebhookConfig(id: ${id}) { id } }`);
    expect(await ctx.db.prisma.webhookConfig.count()).toBe(0);
  });

  it('counts deliveries per minute for the dashboard, zeros included, current minute last', async () => {
    await ctx.db.prisma.outboundQueueItem.deleteMany();
    const now = Date.now();
    const minutesAgo = (m: number) => new Date(now - m * 60_000);
    const items: Array<{ status: QueueStatus; completedAt?: Date; updatedAt?: Date }> = [
      { status: 'completed', completedAt: minutesAgo(0) },
      { status: 'completed', completedAt: minutesAgo(0) },
      { status: 'completed', completedAt: minutesAgo(2) },
      { status: 'failed', updatedAt: minutesAgo(2) },
      { status: 'completed', completedAt: minutesAgo(30) }, // outside the window
      { status: 'pending' },
    ];
    for (const [i, item] of items.entries()) {
      await ctx.db.prisma.outboundQueueItem.create({ data: { ...item, messageId: `msg_rate_${backend}_${i}`, payload: {} } });
    }
    const res = await ctx.api.graphql('{ deliveriesPerMinute(minutes: 5) { minute delivered failed } }');
    const minutes: Array<{ minute: string; delivered: number; failed: number }> = res.body.data.deliveriesPerMinute;
    expect(minutes).toHaveLength(5);
    const starts = minutes.map((m) => Date.parse(m.minute));
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBe(60_000);
    // The same minute boundaries as the database's clock, which may be a minute on from ours.
    const at = (date: Date) => minutes.find((m) => Date.parse(m.minute) === Math.floor(date.getTime() / 60_000) * 60_000);
    expect(at(minutesAgo(0))).toMatchObject({ delivered: 2, failed: 0 });
    expect(at(minutesAgo(2))).toMatchObject({ delivered: 1, failed: 1 });
    expect(minutes.reduce((n, m) => n + m.delivered, 0)).toBe(3);

    const tooMany = await ctx.api.graphql('{ deliveriesPerMinute(minutes: 0) { minute } }');
    expect(tooMany.body.errors[0].extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'minutes', message: expect.any(String) }],
    });
  });
});
