import pino from 'pino';
import { createToken } from '../../src/auth/token.service';
import { createWorker } from '../../src/queue/worker';
import { useRedisReplicas } from '../support/http';
import { probeEvent, sseSubscriber } from '../support/operational-events';
import { startReceiver } from '../support/receiver';
import { untilLive, waitForValue } from '../support/wait-for';

const logger = pino({ level: 'silent' });
const soon = () => new Date(Date.now() + 1_000);
const redisUrl = process.env.TEST_REDIS_URL;
// Two servers in this process share one Redis and one database: on the embedded test cluster, once per run.
const describeWithRedis = redisUrl ? describe : describe.skip;

describeWithRedis('operational events across replicas through Redis', () => {
  const replicas = useRedisReplicas(redisUrl!);
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 410 }));
  });
  afterAll(() => receiver?.close());

  it("streams replica A's worker's delivery.failed to an admin subscribed on replica B", async () => {
    const { db, a: replicaA, b: replicaB } = replicas;
    const admin = (await createToken(db.prisma, 'admin-replicas', 'admin')).token;
    await replicaA.request('POST', '/graphql', {
      token: admin,
      body: { query: `mutation { createWebhookConfig(url: "${receiver.url}", entityType: product, direction: to_webshop) { id } }` },
    });
    const subscriber = await sseSubscriber(replicaB, admin);
    try {
      // Until an event published on A reaches B, B's SUBSCRIBE may not have reached Redis yet.
      await untilLive(
        (n) => replicaA.events.publishOperational(probeEvent(n)),
        () => subscriber.events.some((e) => e.data?.operationalEvents.url?.startsWith('probe:')),
      );
      await replicaA.request('POST', '/api/v1/failures', {
        body: { entity_type: 'product', external_id: 'FROM-A', source: 'erp', error_message: 'x' },
      });
      const worker = createWorker({
        database: db.prisma,
        secrets: replicaA.secrets,
        logger,
        clock: soon,
        onOperationalEvents: (events) => events.forEach(replicaA.events.publishOperational),
      });
      expect(await worker.runOnce()).toBe(1);
      // Found by its URL: the Redis of the test run is shared, and another suite's events may pass through it.
      const event = await waitForValue(
        () => subscriber.events.find((e) => e.data?.operationalEvents.url === receiver.url),
        30_000,
        "A's delivery.failed on B",
      );
      expect(event.data!.operationalEvents).toMatchObject({ name: 'delivery.failed', statusCode: 410 });
    } finally {
      await subscriber.close();
    }
  });
});
