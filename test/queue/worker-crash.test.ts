import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { createWorker } from '../../src/queue/worker';
import { createSecretBox } from '../../src/deliveries/secret-box';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { useApiFixture } from '../support/http';
import { workerProcess } from '../support/process';
import { holdingFirst, startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait-for';

/** Once per run, on the embedded test cluster: the child works on the fixture's database over its socket. */
describe('a worker process killed mid-delivery', () => {
  const key = randomBytes(32);
  const ctx = useApiFixture('embedded', { secrets: createSecretBox(key) });

  it('leaves its item to another worker, which completes it once the lease runs out', async () => {
    const first = holdingFirst();
    const receiver = await startReceiver((_req, index) => first.answer(index));
    await createWebhook(ctx.db.prisma, ctx.api.secrets, {
      url: receiver.url,
      entityType: 'product',
      direction: 'to_webshop',
      secret: 'crash-test-secret-1234',
    });
    await ctx.api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'product', external_id: 'K-1', source: 'erp', error_message: 'boom' },
    });

    const { child, exited } = workerProcess(ctx.db.url, key);
    try {
      await waitFor(() => receiver.requests.length > 0, 60_000, 'the child mid-delivery');
      expect(receiver.requests).toHaveLength(1); // the child is now mid-delivery
      expect((await ctx.db.prisma.outboundQueueItem.findFirstOrThrow()).status).toBe('processing');
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      const item = await ctx.db.prisma.outboundQueueItem.findFirstOrThrow();
      const afterLease = new Date(item.leaseExpiresAt!.getTime() + 1);
      const survivor = createWorker({
        database: ctx.db.prisma,
        secrets: ctx.api.secrets,
        logger: pino({ level: 'silent' }),
        clock: () => afterLease,
      });
      expect(await survivor.runOnce()).toBe(1);
      expect(await ctx.db.prisma.outboundQueueItem.findFirstOrThrow()).toMatchObject({ status: 'completed', attempts: 2 });
      expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([
        receiver.requests[0]!.headers['webhook-id'],
        receiver.requests[0]!.headers['webhook-id'],
      ]);
    } finally {
      child.kill('SIGKILL');
      first.release();
      await receiver.close();
    }
  }, 180_000);
});
