import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { backends } from '../support/database';
import { useApiFixture, useRedisReplicas, type TestServer } from '../support/http';
import { openSse } from '../support/sse';
import { untilLive, waitFor, waitForValue } from '../support/wait-for';

const SUBSCRIPTION =
  'subscription($t: FailureEntityType) { syncFailure(entityType: $t) { event entity_type external_id source error_message error_details { field message } failed_at } }';
const failure = (overrides: Record<string, unknown> = {}) => ({
  entity_type: 'partner',
  external_id: 'P-1',
  source: 'webshop',
  error_message: 'Unknown country',
  error_details: [{ field: 'country', message: 'unknown' }],
  ...overrides,
});

type Streamed = { data?: { syncFailure: Record<string, unknown> & { external_id: string } } };
const idOf = (event: Streamed) => event.data?.syncFailure.external_id;
const isProbe = (event: Streamed) => idOf(event)?.startsWith('PROBE-') ?? false;
/** What a stream received after its probes. */
const afterProbes = (events: Streamed[]) => events.filter((e) => !isProbe(e));

function wsClient(api: TestServer, token: string | null) {
  return createClient({
    url: `${api.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: true,
  });
}

describe.each(backends)('sync_failure subscription on %s', (backend) => {
  const ctx = useApiFixture(backend);

  it('streams each reported failure over SSE, filtered by entity type', async () => {
    const stream = await openSse<Streamed>(ctx.api.url, ctx.api.token, SUBSCRIPTION, { t: 'partner' });
    const report = (body: Record<string, unknown>) => ctx.api.request('POST', '/api/v1/failures', { body: failure(body) });
    await untilLive(
      (n) => report({ external_id: `PROBE-${n}` }),
      () => stream.events.some(isProbe),
    );
    // A product failure first: had the filter let it through, it would arrive before the partner's.
    await report({ entity_type: 'product' });
    await report({});
    const event = await waitForValue(() => afterProbes(stream.events)[0], 30_000, 'the partner failure');
    await stream.close();
    expect(event.data!.syncFailure).toEqual({
      event: 'sync_failure',
      entity_type: 'partner',
      external_id: 'P-1',
      source: 'webshop',
      error_message: 'Unknown country',
      error_details: [{ field: 'country', message: 'unknown' }],
      failed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('needs the bearer token for SSE', async () => {
    const res = await fetch(`${ctx.api.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: SUBSCRIPTION }),
    });
    expect(res.status).toBe(401);
  });

  it('streams over graphql-ws with the token in connectionParams, and refuses a connection without one', async () => {
    const client = wsClient(ctx.api, ctx.api.token);
    const received: Streamed[] = [];
    let failed: unknown;
    client.subscribe(
      { query: SUBSCRIPTION },
      { next: (value) => void received.push(value as Streamed), error: (error) => (failed = error), complete: () => undefined },
    );
    const report = (externalId: string) => ctx.api.request('POST', '/api/v1/failures', { body: failure({ external_id: externalId }) });
    await untilLive(
      (n) => report(`PROBE-${n}`),
      () => received.some(isProbe) || failed !== undefined,
    );
    expect(failed).toBeUndefined();
    await report('WS-1');
    await waitFor(() => afterProbes(received).length > 0, 30_000, 'the failure over graphql-ws');
    expect(afterProbes(received)[0]).toMatchObject({ data: { syncFailure: { external_id: 'WS-1', entity_type: 'partner' } } });
    await client.dispose();

    const anonymous = wsClient(ctx.api, null);
    const refused = new Promise<unknown>((resolve) => {
      anonymous.subscribe(
        { query: SUBSCRIPTION },
        { next: () => resolve('unexpected event'), error: resolve, complete: () => resolve('completed') },
      );
    });
    const error = (await refused) as { code?: number };
    expect(error.code).toBe(4403);
    await anonymous.dispose();
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
// Two servers in this process share one Redis and one database: on the embedded test cluster, once per run.
const describeWithRedis = redisUrl ? describe : describe.skip;

describeWithRedis('sync_failure across replicas through Redis', () => {
  const replicas = useRedisReplicas(redisUrl!);

  it('delivers a failure reported to replica A to a subscriber on replica B', async () => {
    const { a: replicaA, b: replicaB } = replicas;
    const stream = await openSse<Streamed>(replicaB.url, replicaB.token, SUBSCRIPTION);
    // Until a failure reported to A reaches B, B's SUBSCRIBE may not have reached Redis yet.
    await untilLive(
      (n) => replicaA.request('POST', '/api/v1/failures', { body: failure({ external_id: `PROBE-${n}` }) }),
      () => stream.events.some(isProbe),
    );
    await replicaA.request('POST', '/api/v1/failures', { body: failure({ external_id: 'FROM-A' }) });
    // By id: the Redis of the test run is shared, and another suite's failures may pass through it too.
    await waitFor(() => stream.events.some((e) => idOf(e) === 'FROM-A'), 30_000, 'the failure from A');
    await stream.close();
  });
});
