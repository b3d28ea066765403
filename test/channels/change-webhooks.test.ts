import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { createToken } from '../../src/auth/token.service';
import { changeBatchHooks, createChangeBatches } from '../../src/queue/change-batches';
import { createChannel, setChannelPush, stopChannelPush } from '../../src/channels/channel.service';
import { createWorker } from '../../src/queue/worker';
import { updateWebhook } from '../../src/webhooks/webhook.service';
import { backends, clearDeliveries } from '../support/database';
import { useApiFixture } from '../support/http';
import { useReceiver } from '../support/receiver';
import { waitFor } from '../support/wait-for';

const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const HOUR = 3_600_000;

type Batch = { event: string; channel: string; entity_type: string; records: Array<{ id: number; externalId: string; revision: number }> };

/** Change webhooks (issue 32, ADR 0047): a channel's change records pushed, each batch acknowledged by its 2xx. */
describe.each(backends)('change webhooks on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const receiver = useReceiver();
  let now: Date;
  let round = 0;

  const worker = () =>
    createWorker({
      database: ctx.db.prisma,
      secrets: ctx.api.secrets,
      logger,
      clock: () => now,
      ...changeBatchHooks(createChangeBatches(ctx.db.sql, logger)),
    });
  const push = (products: unknown[]) => ctx.api.request('POST', '/api/v1/products', { body: { products } });
  const batches = () => receiver.requests.map((r) => JSON.parse(r.body) as Batch);

  /** A new channel with `count` products pushed since, pushing to the receiver; a viewer token reads it. */
  async function pushChannel(count: number, batchSize: number) {
    round++;
    const name = `push-${round}`;
    await createChannel(ctx.db.prisma, name, 'now');
    await push(Array.from({ length: count }, (_, i) => ({ external_id: `${name}-P${i}`, name: `p${i}` })));
    const channel = await setChannelPush(ctx.db.prisma, ctx.api.secrets, name, { url: receiver.url, batchSize });
    const viewer = (await createToken(ctx.db.prisma, `${name}-viewer`, 'viewer', name)).token;
    const pending = async () =>
      (await ctx.api.request('GET', '/api/v1/updated-products?limit=500', { token: viewer })).body as {
        payload: Array<{ id: number; externalId: string; revision: number }>;
        meta: { total: number };
      };
    return { name, channel, viewer, pending };
  }

  beforeEach(async () => {
    await clearDeliveries(ctx.db.prisma);
    // The worker's clock, ahead of the database's: an item queued during the test (at the
    // database's now()) is due by it however slowly the test runs (a loaded CI machine).
    now = new Date(Date.now() + 60_000);
  });

  it('POSTs batches of the change list records, signed, and a 2xx acknowledges exactly them', async () => {
    const { name, channel, viewer, pending } = await pushChannel(3, 2);
    const listed = (await ctx.api.request('GET', '/api/v1/updated-products?limit=2', { token: viewer })).body.payload;
    const w = worker();
    expect(await w.runOnce()).toBe(1);
    const [first] = batches();
    expect(first).toEqual({ event: 'changes', channel: name, entity_type: 'product', records: listed });
    // Both signatures, as failure deliveries carry them.
    const request = receiver.requests[0]!;
    const headers = Object.fromEntries(
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(request.headers[h])]),
    );
    expect(() => new Webhook(channel.newSecret!).verify(request.body, headers)).not.toThrow();
    expect(request.headers['x-webhook-signature']).toMatch(/^[0-9a-f]{64}$/);

    expect((await pending()).meta.total).toBe(1);
    expect(await w.runOnce()).toBe(1);
    expect(batches()[1]!.records.map((r) => r.externalId)).toEqual([`${name}-P2`]);
    expect((await pending()).meta.total).toBe(0);
    expect(await w.runOnce()).toBe(0);
  });

  it('retries a failed batch with the same webhook-id, and a later revision waits for the earlier one', async () => {
    const { name, pending } = await pushChannel(1, 10);
    receiver.answer = (index) => ({ status: index === 0 ? 500 : 200 });
    const w = worker();
    expect(await w.runOnce()).toBe(1);
    expect((await pending()).meta.total).toBe(1);
    // The record changes while its batch is retried: the retry carries what it carried, the change comes after.
    await push([{ external_id: `${name}-P0`, name: 'changed' }]);
    now = new Date(Date.now() + HOUR);
    expect(await w.runOnce()).toBe(1);
    const [failed, retried] = receiver.requests;
    expect(retried!.headers['webhook-id']).toBe(failed!.headers['webhook-id']);
    expect(batches()[1]!.records.map((r) => r.revision)).toEqual([1]);
    // Acknowledged at revision 1 only: revision 2 is still pending, and goes next.
    expect((await pending()).payload.map((r) => r.revision)).toEqual([2]);
    expect(await w.runOnce()).toBe(1);
    expect(batches()[2]!.records.map((r) => r.revision)).toEqual([2]);
    expect(batches()[2]!.records[0]).toMatchObject({ changedFields: ['name'], previous: { name: 'p0' } });
    expect((await pending()).meta.total).toBe(0);
  });

  it('pauses with its configuration and resumes; push and poll are exclusive', async () => {
    const { name, channel, pending } = await pushChannel(2, 10);
    await updateWebhook(ctx.db.prisma, ctx.api.secrets, channel.push!.webhookId, { active: false });
    const w = worker();
    expect(await w.runOnce()).toBe(0);
    expect(receiver.requests).toHaveLength(0);

    const shop = (await createToken(ctx.db.prisma, `${name}-shop`, 'webshop', name)).token;
    const polled = await ctx.api.request('GET', '/api/v1/updated-products', { token: shop });
    expect(polled.status).toBe(409);
    expect(polled.body.error.message).toMatch(/pushes its changes/);
    const acked = await ctx.api.request('POST', '/api/v1/updated-products/batch-delete', { token: shop, body: { ids: [1] } });
    expect(acked.status).toBe(409);

    await updateWebhook(ctx.db.prisma, ctx.api.secrets, channel.push!.webhookId, { active: true });
    expect(await w.runOnce()).toBe(1);
    expect((await pending()).meta.total).toBe(0);

    // Push off: the shop polls again (the mode is read at most once a second).
    await stopChannelPush(ctx.db.prisma, name);
    await waitFor(
      async () => (await ctx.api.request('GET', '/api/v1/updated-products', { token: shop })).status === 200,
      30_000,
      'polls again',
    );
  });

  it('pushes channel default too, and its integration token may then not poll', async () => {
    await push([{ external_id: `default-push-${backend}`, name: 'x' }]);
    await setChannelPush(ctx.db.prisma, ctx.api.secrets, 'default', { url: receiver.url });
    // The mode is read at most once a second.
    await waitFor(async () => (await ctx.api.request('GET', '/api/v1/updated-products')).status === 409, 30_000, 'refused to poll');
    now = new Date(Date.now() + 60_000);
    const w = worker();
    while ((await w.runOnce()) > 0);
    expect(batches().every((b) => b.channel === 'default')).toBe(true);
    expect(batches().flatMap((b) => b.records.map((r) => r.externalId))).toContain(`default-push-${backend}`);
    expect(await ctx.db.prisma.product.count({ where: { pending: true } })).toBe(0);
    await stopChannelPush(ctx.db.prisma, 'default');
  });
});
