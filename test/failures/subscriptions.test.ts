import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createEventHub } from '../../src/events/hub';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, useApiFixture, type TestServer } from '../support/http';

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

/** Opens an SSE subscription and resolves with the first `count` events. */
async function sseEvents(api: TestServer, count: number, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${api.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: SUBSCRIPTION, variables }),
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const events: unknown[] = [];
  const done = (async () => {
    let buffer = '';
    while (events.length < count) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      buffer += new TextDecoder().decode(value);
      for (const line of buffer.split('\n')) if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)));
      buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
    }
    await reader.cancel();
    return events;
  })();
  return { done };
}

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
    const stream = await sseEvents(ctx.api, 1, { t: 'partner' });
    await new Promise((r) => setTimeout(r, 100));
    await ctx.api.request('POST', '/api/v1/failures', { body: failure({ entity_type: 'product' }) });
    await ctx.api.request('POST', '/api/v1/failures', { body: failure() });
    const [event] = (await stream.done) as Array<{ data: { syncFailure: Record<string, unknown> } }>;
    expect(event!.data.syncFailure).toEqual({
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
    const received = new Promise<unknown>((resolve, reject) => {
      client.subscribe({ query: SUBSCRIPTION }, { next: (value) => resolve(value), error: reject, complete: () => undefined });
    });
    await new Promise((r) => setTimeout(r, 200));
    await ctx.api.request('POST', '/api/v1/failures', { body: failure({ external_id: 'WS-1' }) });
    expect(await received).toMatchObject({ data: { syncFailure: { external_id: 'WS-1', entity_type: 'partner' } } });
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
  let db: TestDatabase;
  let replicaA: TestServer;
  let replicaB: TestServer;

  beforeAll(async () => {
    db = await openTestDatabase('embedded');
    replicaA = await startTestServer(db, { events: createEventHub({ redisUrl }) });
    replicaB = await startTestServer(db, { events: createEventHub({ redisUrl }) });
  });
  afterAll(async () => {
    await replicaA?.close();
    await replicaB?.close();
    await replicaA?.events.close();
    await replicaB?.events.close();
    await db?.close();
  });

  it('delivers a failure reported to replica A to a subscriber on replica B', async () => {
    const stream = await sseEvents(replicaB, 1);
    await new Promise((r) => setTimeout(r, 300));
    await replicaA.request('POST', '/api/v1/failures', { body: failure({ external_id: 'FROM-A' }) });
    const [event] = (await stream.done) as Array<{ data: { syncFailure: { external_id: string } } }>;
    expect(event!.data.syncFailure.external_id).toBe('FROM-A');
  });
});
