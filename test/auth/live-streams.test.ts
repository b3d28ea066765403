import type { ExecutionResult } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createAdminAccount } from '../../src/accounts/account.service';
import { createToken, revokeToken } from '../../src/auth/token.service';
import { backends } from '../support/database';
import { postgresEnv, runCli } from '../support/process';
import { startTestServer, useApiFixture, useRedisReplicas, type TestServer } from '../support/http';
import { untilLive as untilLiveAll, waitFor } from '../support/wait-for';

const SUBSCRIPTION = 'subscription { syncFailure { external_id error_message } }';

type Ending = 'complete' | { error: unknown } | 'still open';
type Feed = { results: ExecutionResult[]; ended: Promise<Ending>; dispose(): void };

function feed(
  subscribe: (sink: { next(r: ExecutionResult): void; error(e: unknown): void; complete(): void }) => () => void,
  dispose: () => void,
): Feed {
  const results: ExecutionResult[] = [];
  let unsubscribe = () => undefined as void;
  const ended = new Promise<Ending>((resolve) => {
    unsubscribe = subscribe({ next: (r) => results.push(r), error: (e) => resolve({ error: e }), complete: () => resolve('complete') });
  });
  return {
    results,
    ended,
    dispose() {
      unsubscribe();
      dispose();
    },
  };
}

function sseFeed(api: TestServer, token: string): Feed {
  const client = createSseClient({ url: `${api.url}/graphql`, headers: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
  return feed(
    (sink) => client.subscribe({ query: SUBSCRIPTION }, sink as never),
    () => client.dispose(),
  );
}

function wsFeed(api: TestServer, token: string): Feed {
  const client = createWsClient({
    url: `${api.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  return feed(
    (sink) => client.subscribe({ query: SUBSCRIPTION }, sink as never),
    () => void client.dispose(),
  );
}

/** How a feed ended, or 'still open' after `ms` (generous: a failing test should say so, not hang). */
const endingWithin = (f: Feed, ms: number) => Promise.race([f.ended, new Promise<Ending>((r) => setTimeout(() => r('still open'), ms))]);
/** How long a stream that must end may take: only a bound on a failing test, far above any machine's delay. */
const ENDS_WITHIN_MS = 30_000;

const reportFailure = (api: TestServer, externalId: string) =>
  api.request('POST', '/api/v1/failures', {
    body: { entity_type: 'product', external_id: externalId, source: 'webshop', error_message: 'Secret detail' },
  });

/** Reports probe failures until every feed has received one: then the server has them registered. */
const untilLive = (api: TestServer, ...feeds: Feed[]) =>
  untilLiveAll(
    (n) => reportFailure(api, `PROBE-${n}`),
    () => feeds.every((f) => f.results.length > 0),
    'every subscription',
  );

const receivedIds = (f: Feed) =>
  f.results.map((r) => (r.data as { syncFailure?: { external_id: string } } | undefined)?.syncFailure?.external_id);

async function untilReceived(f: Feed, externalId: string): Promise<void> {
  await waitFor(() => receivedIds(f).includes(externalId), 30_000, `event ${externalId}`);
}

const REVOKE = 'mutation($t: String!) { revokeApiToken(idOrName: $t) { revokedAt } }';

describe.each(backends)('revocation ends live streams on %s', (backend) => {
  const ctx = useApiFixture(backend);
  let admin: string;
  const feeds: Feed[] = [];
  const track = (f: Feed) => (feeds.push(f), f);

  beforeAll(async () => {
    admin = (await createToken(ctx.db.prisma, 'stream-admin', 'admin')).token;
  });
  afterEach(() => feeds.splice(0).forEach((f) => f.dispose()));

  const revokeThroughApi = async (name: string) => {
    const res = await ctx.api.request('POST', '/graphql', { token: admin, body: { query: REVOKE, variables: { t: name } } });
    expect(res.body.data.revokeApiToken.revokedAt).toEqual(expect.any(String));
  };

  it('ends an SSE stream when its token is revoked, with a last UNAUTHENTICATED result, and leaves other streams alone', async () => {
    const { token: victim } = await createToken(ctx.db.prisma, 'sse-victim');
    const revoked = track(sseFeed(ctx.api, victim));
    const bystander = track(sseFeed(ctx.api, ctx.api.token));
    await untilLive(ctx.api, revoked, bystander);

    await revokeThroughApi('sse-victim');
    // Same replica: the mutation answers after this process's streams of the token have ended.
    expect(await endingWithin(revoked, ENDS_WITHIN_MS)).toBe('complete');
    expect(revoked.results.at(-1)?.errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });

    const seen = revoked.results.length;
    await reportFailure(ctx.api, 'AFTER-REVOKE');
    await untilReceived(bystander, 'AFTER-REVOKE');
    expect(revoked.results).toHaveLength(seen);
    expect((await ctx.api.request('GET', '/api/v1/failures', { token: victim })).status).toBe(401);
  });

  it('closes a graphql-ws connection with 4403 when its token is revoked, and refuses it on reconnect', async () => {
    const { token: victim } = await createToken(ctx.db.prisma, 'ws-victim');
    const revoked = track(wsFeed(ctx.api, victim));
    const bystander = track(wsFeed(ctx.api, ctx.api.token));
    await untilLive(ctx.api, revoked, bystander);

    await revokeThroughApi('ws-victim');
    const ending = await endingWithin(revoked, ENDS_WITHIN_MS);
    expect(ending).toMatchObject({ error: { code: 4403 } });

    await reportFailure(ctx.api, 'AFTER-WS-REVOKE');
    await untilReceived(bystander, 'AFTER-WS-REVOKE');
    expect(receivedIds(revoked)).not.toContain('AFTER-WS-REVOKE');
    expect(await endingWithin(track(wsFeed(ctx.api, victim)), ENDS_WITHIN_MS)).toMatchObject({ error: { code: 4403 } });
  });

  it('ends the SSE and graphql-ws streams of an admin session when it signs out', async () => {
    await createAdminAccount(ctx.db.prisma, { email: 'streams@example.com', password: 'a long enough password' });
    const login = await ctx.api.request('POST', '/api/v1/auth/login', {
      token: null,
      body: { email: 'streams@example.com', password: 'a long enough password' },
    });
    const session: string = login.body.token;
    const sse = track(sseFeed(ctx.api, session));
    const ws = track(wsFeed(ctx.api, session));
    await untilLive(ctx.api, sse, ws);

    const logout = await ctx.api.request('POST', '/graphql', { token: session, body: { query: 'mutation { logout { success } }' } });
    expect(logout.body.data.logout.success).toBe(true);
    expect(await endingWithin(sse, ENDS_WITHIN_MS)).toBe('complete');
    expect(await endingWithin(ws, ENDS_WITHIN_MS)).toMatchObject({ error: { code: 4403 } });
  });

  it('ends a stream whose token another process revoked (the CLI) at the next re-verification, within TOKEN_CACHE_TTL_MS', async () => {
    const replica = await startTestServer(ctx.db, { tokenCacheTtlMs: 1_000 });
    try {
      const { token: victim } = await createToken(ctx.db.prisma, 'cli-victim');
      const sse = track(sseFeed(replica, victim));
      const ws = track(wsFeed(replica, victim));
      const bystander = track(sseFeed(replica, replica.token));
      await untilLive(replica, sse, ws, bystander);
      expect(await endingWithin(sse, 1_500)).toBe('still open');

      await revokeToken(ctx.db.prisma, 'cli-victim'); // straight to the database: nobody announces it
      // Nothing but the periodic re-verification (every second here) can end them.
      const [sseEnding, wsEnding] = await Promise.all([endingWithin(sse, ENDS_WITHIN_MS), endingWithin(ws, ENDS_WITHIN_MS)]);
      expect(sseEnding).toBe('complete');
      expect(wsEnding).toMatchObject({ error: { code: 4403 } });
      expect(await endingWithin(bystander, 0)).toBe('still open');
    } finally {
      await replica.close();
    }
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
// Two servers in this process and the CLI share one Redis and one database: on the embedded test cluster, once per run.
const describeWithRedis = redisUrl ? describe : describe.skip;

describeWithRedis('revocation across replicas through Redis', () => {
  // A token cache of an hour, and so a periodic re-verification once an hour: only the Redis
  // notice can end a stream or forget a cached token while these tests run.
  const replicas = useRedisReplicas(redisUrl!, { tokenCacheTtlMs: 3_600_000 });
  const feeds: Feed[] = [];
  afterAll(() => feeds.forEach((f) => f.dispose()));

  it('ends the stream on replica B and its cached token when replica A revokes the token', async () => {
    const { db, a: replicaA, b: replicaB } = replicas;
    const { token: admin } = await createToken(db.prisma, 'redis-admin', 'admin');
    const { token: victim } = await createToken(db.prisma, 'redis-victim');
    const sse = sseFeed(replicaB, victim);
    const ws = wsFeed(replicaB, victim);
    feeds.push(sse, ws);
    await untilLive(replicaB, sse, ws);
    expect((await replicaB.request('GET', '/api/v1/failures', { token: victim })).status).toBe(200); // now cached on B

    const res = await replicaA.request('POST', '/graphql', { token: admin, body: { query: REVOKE, variables: { t: 'redis-victim' } } });
    expect(res.body.data.revokeApiToken.revokedAt).toEqual(expect.any(String));
    expect(await endingWithin(sse, ENDS_WITHIN_MS)).toBe('complete');
    expect(await endingWithin(ws, ENDS_WITHIN_MS)).toMatchObject({ error: { code: 4403 } });
    expect((await replicaB.request('GET', '/api/v1/failures', { token: victim })).status).toBe(401);
  });

  it('ends the streams of a token revoked by `sync-gateway token revoke` at once, through the database (NOTIFY)', async () => {
    const { db, b: replicaB } = replicas;
    const victim = (await createToken(db.prisma, 'cli-redis-victim-2')).token;
    const sse = sseFeed(replicaB, victim);
    feeds.push(sse);
    await untilLive(replicaB, sse);
    const cli = await runCli(postgresEnv(db.url, { REDIS_URL: redisUrl, LOG_LEVEL: 'warn' }), ['token', 'revoke', 'cli-redis-victim-2']);
    expect(cli).toMatchObject({ code: 0, stdout: expect.stringContaining('revoked token "cli-redis-victim-2"') });
    // The periodic re-verification runs once an hour here: only the CLI's notice can end it.
    expect(await endingWithin(sse, ENDS_WITHIN_MS)).toBe('complete');
  }, 60_000);
});
