import type Redis from 'ioredis';
import pino from 'pino';
import { createEventHub } from '../../src/events/hub';
import { createRateLimiters } from '../../src/rate-limits/limiters';
import { createRedisClient, redisHealth } from '../../src/redis/redis-client';
import { openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, type TestServer } from '../support/http';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { openSse, type SseStream } from '../support/sse';
import { waitFor } from '../support/wait-for';

/**
 * A Redis of the test's own, killed while the service runs: probes, polls and reports answer without
 * waiting for it (memory rate limit, local live events), /ready says degraded, and when Redis
 * returns the subscriber is told of the gap and Redis fan-out resumes, without a restart.
 *
 * "Without waiting" is checked by what happened, not by the clock (a busy machine makes any request
 * slow): every request answers while Redis is still down or frozen (it is only restored after), and
 * of the request path's Redis commands none waited for Redis (none was left unanswered past the
 * turn of the event loop it was sent in), except, with Redis frozen, the one that runs into the
 * command timeout and makes the client drop the connection.
 */
const describeWithRedis = process.env.TEST_REDIS_URL ? describe : describe.skip;
if (!process.env.TEST_REDIS_URL) console.warn('redis-outage tests skipped: TEST_REDIS_URL is not set (redis-server needed)');

type Payload = {
  data?: { syncFailure: { external_id: string } | null } | null;
  errors?: Array<{ message: string; extensions: Record<string, unknown> }>;
};

/** What a client sends on its own when it (re)connects: not the request path's. */
const CONNECTION_SETUP = new Set(['info', 'client', 'select', 'auth', 'hello']);

type SentCommand = { name: string; waited: boolean; error?: string };

/**
 * Records the commands a client is asked to send, and whether each one waited: still unanswered
 * when the event loop next comes round (setImmediate). A command refused because the client is not
 * connected is settled before that; one queued until a reconnect, or sent to a Redis that does not
 * answer, is not.
 */
function recordCommands(client: Redis): SentCommand[] {
  const sent: SentCommand[] = [];
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((command: Parameters<Redis['sendCommand']>[0], stream?: Parameters<Redis['sendCommand']>[1]) => {
    const result = send(command, stream);
    if (!CONNECTION_SETUP.has(command.name.toLowerCase())) {
      const entry: SentCommand = { name: command.name, waited: false };
      let settled = false;
      command.promise.then(
        () => (settled = true),
        (error: unknown) => {
          settled = true;
          entry.error = error instanceof Error ? error.message : String(error);
        },
      );
      setImmediate(() => (entry.waited = !settled));
      sent.push(entry);
    }
    return result;
  }) as Redis['sendCommand'];
  return sent;
}

describeWithRedis('a Redis outage', () => {
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  let redis: RedisServer;
  let db: TestDatabase;
  let api: TestServer;
  let limiterClient: ReturnType<typeof createRedisClient>;
  /** The rate limiter's commands: the one Redis client a request waits on (events are published without waiting). */
  let commands: SentCommand[];

  beforeAll(async () => {
    redis = await startRedisServer();
    db = await openTestDatabase('embedded');
    limiterClient = createRedisClient(redis.url, 'rate-limit', logger);
    commands = recordCommands(limiterClient);
    const events = createEventHub({ redisUrl: redis.url, logger });
    const limiterHealth = redisHealth([limiterClient]);
    api = await startTestServer(db, {
      events,
      rateLimiters: createRateLimiters({ readPerMinute: 100_000, writePerMinute: 100_000 }, limiterClient, `outage-${Date.now()}`),
      redis: { status: () => [limiterHealth.status(), events.redis!.status()].find((s) => s !== 'ok') ?? 'ok' },
    });
    await waitFor(() => (api.events.redis?.status() ?? '') === 'ok' && limiterClient.status === 'ready', 30_000, 'Redis connected');
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await api?.events.close();
    limiterClient?.disconnect();
    await db?.close();
    await redis?.kill();
  }, 60_000);

  const report = (externalId: string) =>
    api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'product', external_id: externalId, source: 'erp', error_message: 'Unknown tax class' },
    });
  const subscribe = () => openSse<Payload>(api.url, api.token, 'subscription { syncFailure { external_id } }');
  /** This replica's subscriber reached Redis (the test's own: nobody else subscribes there). */
  const subscribedInRedis = () => waitFor(async () => (await redis.subscribers('syncFailure')) === 1, 20_000, 'SUBSCRIBE in Redis');

  it('keeps answering without waiting for it, delivers live events locally, and reports the gap when Redis returns', async () => {
    const stream: SseStream<Payload> = await subscribe();
    await subscribedInRedis();
    expect((await report('BEFORE')).status).toBe(201);
    await waitFor(() => stream.events.length === 1, 20_000, 'event through Redis');

    await redis.kill();
    await waitFor(() => limiterClient.status !== 'ready', 20_000, 'client noticed');

    const during = commands.length;
    const health = await api.request('GET', '/health', { token: null });
    const ready = await api.request('GET', '/ready', { token: null });
    const poll = await api.request('GET', '/api/v1/updated-products');
    const reported = await report('DURING');
    const graphql = await api.graphql('{ pendingChanges { products } }');

    expect(health.status).toBe(200);
    expect(ready.status).toBe(200);
    expect(ready.body.checks.redis).toMatch(/^degraded: /);
    expect(poll.status).toBe(200);
    // The memory limiter counted it (the headers are there), instead of a command waiting for Redis.
    expect(poll.headers.get('x-ratelimit-limit')).toBe('100000');
    expect(reported.status).toBe(201);
    expect(graphql.status).toBe(200);
    // All answered with Redis still down (it is started again only below), none having waited for it.
    expect(commands.slice(during).filter((c) => c.waited)).toEqual([]);

    // This replica's subscriber hears this replica's failure, without Redis.
    await waitFor(() => stream.events.length === 2, 20_000, 'local event during the outage');
    expect(stream.events[1]).toEqual({ data: { syncFailure: { external_id: 'DURING' } } });

    await redis.start();
    await waitFor(() => (api.events.redis?.status() ?? '') === 'ok', 30_000, 'Redis reconnected');
    // The gap: one error payload naming the interval; the stream goes on.
    await waitFor(() => stream.events.length === 3, 20_000, 'gap marker');
    const gap = stream.events[2]!;
    expect(gap.data).toBeNull();
    expect(gap.errors?.[0]?.extensions).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      gap: { from: expect.any(String), until: expect.any(String) },
    });
    const { from, until } = gap.errors![0]!.extensions.gap as { from: string; until: string };
    expect(Date.parse(from)).toBeLessThanOrEqual(Date.parse(until));

    await waitFor(() => limiterClient.status === 'ready', 30_000, 'limiter reconnected');
    expect((await api.request('GET', '/ready', { token: null })).body.checks.redis).toBe('ok');
    await subscribedInRedis(); // resubscribed on the new connection
    expect((await report('AFTER')).status).toBe(201);
    await waitFor(() => stream.events.length === 4, 20_000, 'event through Redis again');
    expect(stream.events[3]).toEqual({ data: { syncFailure: { external_id: 'AFTER' } } });
    await stream.close();
  }, 120_000);

  it('drops a frozen Redis after one command timeout instead of waiting on every request', async () => {
    await waitFor(() => (api.events.redis?.status() ?? '') === 'ok' && limiterClient.status === 'ready', 30_000, 'Redis connected');
    redis.freeze();
    try {
      const during = commands.length;
      // The first request's command waits for the command timeout; then the client drops the
      // connection and reconnects, and the next five count in memory at once.
      const first = await api.request('GET', '/api/v1/updated-products');
      expect(first.status).toBe(200);
      const next = [];
      for (let i = 0; i < 5; i++) next.push(await api.request('GET', '/api/v1/updated-products'));
      expect(next.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      // All six answered with Redis still frozen (it is thawed only below); one command waited, until
      // REDIS_COMMAND_TIMEOUT_MS, not one per request.
      const waited = commands.slice(during).filter((c) => c.waited);
      expect(waited.map((c) => c.error)).toEqual(['Command timed out']);
      expect((await api.request('GET', '/ready', { token: null })).body.checks.redis).toMatch(/^degraded: /);
    } finally {
      redis.thaw();
    }
    await waitFor(() => limiterClient.status === 'ready', 30_000, 'reconnected after thaw');
  }, 120_000);
});
