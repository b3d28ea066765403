/**
 * The GraphQL the console's Pending, Queue, Webhooks and Overview pages read (issue 32, item 6),
 * on both backends: pending records with previous values that mark nothing as listed (an admin's
 * read must not widen a webshop's acknowledgement by id), deliveries by webhook-id and failure,
 * per-endpoint success rate and latency, and failed attempts counted while items retry.
 */
import pino from 'pino';
import { createAdminAccount } from '../../src/accounts/account.service';
import { createToken } from '../../src/auth/token.service';
import { createChannel } from '../../src/channels/channel.service';
import { createWorker } from '../../src/queue/worker';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { backends } from '../support/database';
import { useApiFixture } from '../support/http';
import { startReceiver } from '../support/receiver';

jest.setTimeout(60_000);

const PENDING = `query Pending($entityType: String!, $limit: Int, $channel: String) {
  pendingRecords(entityType: $entityType, limit: $limit, channel: $channel) {
    payload { id revision key historyExternalId isNew changedFields previous current updatedAt }
    meta { total }
  }
}`;

describe.each(backends)('console dashboard queries on %s', (backend) => {
  const ctx = useApiFixture(backend);
  let session: string;
  let webshop: string;

  const gql = async (query: string, variables: Record<string, unknown> = {}, token = session) => {
    const res = await ctx.api.request('POST', '/graphql', { token, body: { query, variables } });
    return res.body as { data: any; errors?: Array<{ message: string; extensions: { code: string } }> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- each test reads its fields
  };

  beforeAll(async () => {
    await createAdminAccount(ctx.db.prisma, { email: `ops-${backend}@example.com`, password: 'correct horse battery staple' });
    const login = await gql(
      'mutation { login(email: "ops-' + backend + '@example.com", password: "correct horse battery staple") { token } }',
      {},
      '',
    );
    session = login.data.login.token;
    webshop = (await createToken(ctx.db.prisma, `shop-${backend}`, 'webshop')).token;
  });

  it('reads the pending records of the channel named, and a token bound to a channel its own only', async () => {
    await createChannel(ctx.db.prisma, `dash-${backend}`, 'all');
    await createChannel(ctx.db.prisma, `dash-other-${backend}`, 'now');
    const bound = (await createToken(ctx.db.prisma, `dash-shop-${backend}`, 'webshop', `dash-${backend}`)).token;
    await ctx.api.request('POST', '/api/v1/products', { body: { products: [{ external_id: 'DASH-1', name: 'Bowl' }] } });
    const onChannel = (await gql(PENDING, { entityType: 'product', limit: 500, channel: `dash-${backend}` })).data.pendingRecords;
    const own = (await gql(PENDING, { entityType: 'product', limit: 500 }, bound)).data.pendingRecords;
    expect(own).toEqual(onChannel);
    expect(onChannel.payload.map((r: { key: string }) => r.key)).toContain('DASH-1');
    const other = (await gql(PENDING, { entityType: 'product', limit: 500, channel: `dash-other-${backend}` })).data.pendingRecords;
    expect(other.payload.map((r: { key: string }) => r.key)).toEqual(['DASH-1']);
    const refused = await gql(PENDING, { entityType: 'product', channel: `dash-other-${backend}` }, bound);
    expect(refused.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
    expect((await gql(PENDING, { entityType: 'product', channel: 'no-such' })).errors?.[0]?.extensions.code).toBe('NOT_FOUND');
  });

  it('lists pending records with previous and current values, and leaves listed_revisions untouched', async () => {
    const push = (products: unknown[]) => ctx.api.request('POST', '/api/v1/products', { body: { products } });
    await push([
      { external_id: 'A', name: 'Cup', price: 1 },
      { external_id: 'B', name: 'Mug', price: 2 },
    ]);
    // The webshop takes both in, then A changes: A pending with its price before, B not; C is new.
    const listed = await ctx.api.request('GET', '/api/v1/updated-products?limit=500', { token: webshop });
    const ids = (listed.body.payload as Array<{ id: number }>).map((r) => r.id);
    await ctx.api.request('POST', '/api/v1/updated-products/batch-delete', { token: webshop, body: { ids } });
    await push([{ external_id: 'A', price: 5 }, { external_id: 'C' }]);
    const marksBefore = await ctx.db.prisma.product.findMany({ select: { id: true, listedRevisions: true }, orderBy: { id: 'asc' } });

    const page = (await gql(PENDING, { entityType: 'product' })).data.pendingRecords;
    expect(page.meta.total).toBe(2);
    expect(page.payload).toEqual([
      expect.objectContaining({ key: 'A', historyExternalId: 'A', isNew: false, changedFields: ['price'], previous: { price: 1 } }),
      expect.objectContaining({ key: 'C', isNew: true, previous: null, revision: 1 }),
    ]);
    expect(page.payload[0].current).toEqual({ price: 5 });
    // Read as an admin session, and as an admin or integration token: no listing mark anywhere.
    await gql(PENDING, { entityType: 'product' }, ctx.api.token);
    expect(await ctx.db.prisma.product.findMany({ select: { id: true, listedRevisions: true }, orderBy: { id: 'asc' } })).toEqual(
      marksBefore,
    );
    // So the webshop's acknowledgement of C by id covers nothing: C was never listed to it.
    const c = page.payload[1];
    const ack = await ctx.api.request('POST', '/api/v1/updated-products/batch-delete', { token: webshop, body: { ids: [c.id] } });
    expect(ack.body).toMatchObject({ acknowledged: 0, notListed: [c.id] });
  });

  it('shows stock entries and prices with their value before, and refuses an unknown entity type', async () => {
    await ctx.api.request('POST', '/api/v1/stocks', {
      body: { stocks: [{ supplier_external_id: 'S1', product_external_id: 'A', quantity: 4 }] },
    });
    await ctx.api.request('POST', '/api/v1/products', {
      body: { products: [{ external_id: 'P', pricelists: [{ pricelist_external_id: 'RETAIL', pricelist_name: 'Retail', price: 9 }] }] },
    });
    const stock = (await gql(PENDING, { entityType: 'stock' })).data.pendingRecords.payload;
    expect(stock).toEqual([
      expect.objectContaining({ key: 'S1/A', historyExternalId: null, changedFields: ['quantity'], current: { quantity: 4 } }),
    ]);
    const prices = (await gql(PENDING, { entityType: 'price_item' })).data.pendingRecords.payload;
    expect(prices).toEqual([expect.objectContaining({ key: 'RETAIL/P', historyExternalId: 'P', isNew: true, previous: null })]);
    expect(prices[0].current).toMatchObject({ price: 9 });
    const unknown = await gql(PENDING, { entityType: 'invoice' });
    expect(unknown.errors?.[0]?.extensions.code).toBe('VALIDATION_FAILED');
    expect(unknown.errors?.[0]?.message).toMatch(/entityType|invalid|Unknown/i);
  });

  it('finds a delivery by webhook-id and failure, counts failed attempts while items retry, and rates each endpoint', async () => {
    const failing = await startReceiver(() => ({ status: 500, body: 'down' }));
    const fine = await startReceiver(() => ({ status: 200, body: 'ok' }));
    try {
      const bad = await createWebhook(ctx.db.prisma, ctx.api.secrets, {
        url: failing.url,
        entityType: 'product',
        direction: 'to_erp',
        secret: 'whsec-failing-0123456789',
      });
      const good = await createWebhook(ctx.db.prisma, ctx.api.secrets, {
        url: fine.url,
        entityType: 'product',
        direction: 'to_erp',
        secret: 'whsec-fine-0123456789',
      });
      const reported = await ctx.api.request('POST', '/api/v1/failures', {
        body: { entity_type: 'product', source: 'webshop', external_id: 'SKU-9', error_message: 'No price' },
      });
      const failureId: number = reported.body.id;
      const worker = createWorker({ database: ctx.db.prisma, secrets: ctx.api.secrets, logger: pino({ level: 'silent' }) });
      await worker.runOnce();
      // The failing item's second attempt is due after a minute: a minute has passed (attempts stay in the chart's window).
      await ctx.db.prisma.outboundQueueItem.updateMany({
        where: { status: 'pending' },
        data: { nextAttemptAt: new Date(Date.now() - 1_000) },
      });
      await worker.runOnce();

      const q = await gql(
        `query($failureId: Int) {
          byFailure: outboundQueue(failureId: $failureId) { payload { id messageId webhookConfigId status } meta { total } }
          retrying: outboundQueue(retrying: true) { payload { id webhookConfigId } }
          outboundQueueStats { pending failed retrying }
          deliveriesPerMinute(minutes: 15) { failed failedAttempts }
          webhookDeliveryStats(minutes: 60) { webhookId attempts succeeded successRate avgDurationMs p95DurationMs }
        }`,
        { failureId },
      );
      expect(q.errors).toBeUndefined();
      const byFailure = q.data.byFailure.payload as Array<{ id: number; messageId: string; webhookConfigId: number; status: string }>;
      expect(byFailure.map((i) => i.webhookConfigId).sort()).toEqual([bad.id, good.id].sort());
      const stuck = byFailure.find((i) => i.webhookConfigId === bad.id)!;
      expect(stuck.status).toBe('pending');
      expect(q.data.retrying.payload).toEqual([{ id: stuck.id, webhookConfigId: bad.id }]);
      // The overview's numbers: nothing abandoned yet, but one item retrying and two attempts failed.
      expect(q.data.outboundQueueStats).toEqual({ pending: 1, failed: 0, retrying: 1 });
      const minutes = q.data.deliveriesPerMinute as Array<{ failed: number; failedAttempts: number }>;
      expect(minutes.reduce((n, m) => n + m.failed, 0)).toBe(0);
      expect(minutes.reduce((n, m) => n + m.failedAttempts, 0)).toBe(2);
      const stats = q.data.webhookDeliveryStats as Array<{ webhookId: number; attempts: number; successRate: number | null }>;
      expect(stats.find((s) => s.webhookId === bad.id)).toMatchObject({ attempts: 2, succeeded: 0, successRate: 0 });
      expect(stats.find((s) => s.webhookId === good.id)).toMatchObject({ attempts: 1, succeeded: 1, successRate: 1 });
      expect(stats.find((s) => s.webhookId === good.id)!).toEqual(
        expect.objectContaining({ avgDurationMs: expect.any(Number), p95DurationMs: expect.any(Number) }),
      );

      // The webhook-id a receiver logged finds its delivery; an unknown one finds nothing.
      const byId = await gql(`query($m: String) { outboundQueue(messageId: $m) { payload { id } } }`, { m: stuck.messageId });
      expect(byId.data.outboundQueue.payload).toEqual([{ id: stuck.id }]);
      const none = await gql(`query { outboundQueue(messageId: "msg_nothing") { payload { id } meta { total } } }`);
      expect(none.data.outboundQueue.meta.total).toBe(0);
    } finally {
      await failing.close();
      await fine.close();
    }
  });
});
