import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { createToken } from '../../src/auth/token.service';
import { changeBatchHooks, createChangeBatches } from '../../src/queue/change-batches';
import { createChannel, setChannelPush } from '../../src/channels/channel.service';
import { createWorker } from '../../src/queue/worker';
import { createSecretBox } from '../../src/deliveries/secret-box';
import { useApiFixture } from '../support/http';
import { workerProcess } from '../support/process';
import { holdingFirst, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait-for';

const logger = pino({ level: 'silent' });

/**
 * Change webhooks across crashes (ADR 0047), once per run on the embedded test cluster: a worker
 * killed mid-delivery, and one that dies after the acknowledgement but before the result is
 * recorded. Either way the batch goes again with the same webhook-id and nothing is lost.
 */
describe('change webhooks when the worker dies', () => {
  const key = randomBytes(32);
  const ctx = useApiFixture('embedded', { secrets: createSecretBox(key) });

  async function pushChannel(name: string, url: string) {
    // One push channel at a time: the other test's would get these products too.
    await ctx.db.prisma.webhookConfig.deleteMany();
    await createChannel(ctx.db.prisma, name, 'now');
    await ctx.api.request('POST', '/api/v1/products', {
      body: { products: [1, 2, 3].map((i) => ({ external_id: `${name}-${i}`, name: `n${i}` })) },
    });
    await setChannelPush(ctx.db.prisma, ctx.api.secrets, name, { url, batchSize: 10 });
    const viewer = (await createToken(ctx.db.prisma, `${name}-viewer`, 'viewer', name)).token;
    return async () => (await ctx.api.request('GET', '/api/v1/updated-products', { token: viewer })).body.meta.total as number;
  }

  it('a worker process killed mid-delivery: another delivers the batch again with its webhook-id, then it is acknowledged', async () => {
    const first = holdingFirst();
    const receiver = await startReceiver((_req, index) => first.answer(index));
    const pending = await pushChannel('crash-mid', receiver.url);
    const { child, exited } = workerProcess(ctx.db.url, key);
    try {
      await waitFor(() => receiver.requests.length > 0, 60_000, 'the child mid-delivery');
      expect(receiver.requests).toHaveLength(1);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      expect(await pending()).toBe(3);

      const item = await ctx.db.prisma.outboundQueueItem.findFirstOrThrow({ where: { event: 'changes' } });
      const afterLease = new Date(item.leaseExpiresAt!.getTime() + 1);
      const survivor = createWorker({
        database: ctx.db.prisma,
        secrets: ctx.api.secrets,
        logger,
        clock: () => afterLease,
        ...changeBatchHooks(createChangeBatches(ctx.db.sql, logger)),
      });
      expect(await survivor.runOnce()).toBe(1);
      expect(receiver.requests[1]!.headers['webhook-id']).toBe(receiver.requests[0]!.headers['webhook-id']);
      expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);
      expect(await pending()).toBe(0);
    } finally {
      first.release();
      child.kill('SIGKILL');
      await receiver.close();
    }
  });

  it('a worker that dies between the acknowledgement and the recorded result: the same batch again, acknowledged once, nothing lost', async () => {
    const receiver = await startReceiver(() => ({ status: 200 }));
    try {
      const pending = await pushChannel('crash-after-ack', receiver.url);
      const hooks = changeBatchHooks(createChangeBatches(ctx.db.sql, logger));
      // Ahead of the database's clock: the batch the worker queues as it claims (at the database's
      // now()) is due by it however slowly the test runs.
      let now = new Date(Date.now() + 60_000);
      const dying = createWorker({
        database: ctx.db.prisma,
        secrets: ctx.api.secrets,
        logger,
        clock: () => now,
        produce: hooks.produce,
        // Acknowledged, then the process is gone before it records the result.
        beforeCompleted: async (item) => {
          await hooks.beforeCompleted(item);
          throw new Error('killed after the acknowledgement');
        },
      });
      await expect(dying.runOnce()).rejects.toThrow('killed after the acknowledgement');
      expect(await pending()).toBe(0);
      const item = await ctx.db.prisma.outboundQueueItem.findFirstOrThrow({ where: { event: 'changes', status: 'processing' } });

      now = new Date(item.leaseExpiresAt!.getTime() + 1);
      const survivor = createWorker({ database: ctx.db.prisma, secrets: ctx.api.secrets, logger, clock: () => now, ...hooks });
      expect(await survivor.runOnce()).toBe(1);
      const [first, again] = receiver.requests;
      expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect(await ctx.db.prisma.outboundQueueItem.findUniqueOrThrow({ where: { id: item.id } })).toMatchObject({ status: 'completed' });
      expect(await pending()).toBe(0);
      // A later change still reaches it: the channel goes on.
      await ctx.api.request('POST', '/api/v1/products', { body: { products: [{ external_id: 'crash-after-ack-1', name: 'later' }] } });
      now = new Date(Date.now() + 60_000);
      expect(await survivor.runOnce()).toBe(1);
      expect(JSON.parse(receiver.requests[2]!.body).records).toMatchObject([{ externalId: 'crash-after-ack-1', revision: 2 }]);
    } finally {
      await receiver.close();
    }
  });
});
