import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { createApp } from '../../src/app';
import { createMetrics } from '../../src/ops/metrics';
import { createReadiness } from '../../src/ops/readiness';
import { createAccountLimiters, type AccountDeps } from '../../src/accounts/account.service';
import { loadConfig, type RequestBounds } from '../../src/config';
import { attachGraphqlWs } from '../../src/http/graphql-ws';
import { createRateLimiters, type RateLimiters } from '../../src/rate-limits/limiters';
import { createToken } from '../../src/auth/token.service';
import { listenForRevocations } from '../../src/auth/revocation-notices';
import { createEventHub, type EventHub } from '../../src/events/hub';
import { createSecretBox, type SecretBox } from '../../src/deliveries/secret-box';
import { setWebhookNetworks, type NetworkLists } from '../../src/deliveries/network-policy';
import { randomBytes } from 'node:crypto';
import type { Backend } from '../../src/db/store';
import { clearDeliveries, createIdleWebhook, openTestDatabase, type TestDatabase } from './database';

export type JsonResponse<T = any> = { status: number; headers: Headers; body: T; text: string }; // eslint-disable-line @typescript-eslint/no-explicit-any -- each test states the body it expects

export type TestServer = {
  url: string;
  token: string;
  /** The running app's request bounds (ADR 0043); node bounds and MAX_RESPONSE_BYTES may be changed between requests. */
  requestBounds: RequestBounds;
  events: EventHub;
  secrets: SecretBox;
  /** Sends a request with the test token (unless `token: null`) and a JSON body when given. */
  request<T = any>( // eslint-disable-line @typescript-eslint/no-explicit-any -- each test states the body it expects
    method: string,
    path: string,
    options?: { body?: unknown; rawBody?: string; token?: string | null; headers?: Record<string, string> },
  ): Promise<JsonResponse<T>>;
  graphql<T = any>(query: string, variables?: Record<string, unknown>): Promise<JsonResponse<T>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- each test states the body it expects
  close(): Promise<void>;
};

export const LOOPBACK_RECEIVERS: NetworkLists = { allowed: ['127.0.0.1/32'], blocked: [] };

/** The real application on a real loopback socket, with a fresh integration token. */
export async function startTestServer(
  db: TestDatabase,
  options: {
    maxBodyBytes?: number;
    logger?: Logger;
    events?: EventHub;
    secrets?: SecretBox;
    rateLimiters?: RateLimiters;
    trustProxy?: boolean;
    corsOrigins?: string[];
    tokenCacheTtlMs?: number;
    accounts?: Partial<Omit<AccountDeps, 'prisma'>>;
    consoleDir?: string;
    /** What /ready reports for Redis (the server passes its clients' state). */
    redis?: { status(): string };
    /**
     * The SSRF guard's lists for this test process. Tests deliver to loopback receivers, so
     * 127.0.0.1/32 is allowed unless a test says otherwise (production allows no loopback).
     */
    webhookNetworks?: NetworkLists;
    /** LISTEN for revocations the CLI announces, as the server does (default); off where a test counts connections. */
    listenForRevocations?: boolean;
    /** Overrides of the configuration's request bounds (ADR 0043). */
    requestBounds?: Partial<RequestBounds>;
  } = {},
): Promise<TestServer> {
  setWebhookNetworks(options.webhookNetworks ?? LOOPBACK_RECEIVERS);
  const events = options.events ?? createEventHub();
  const secrets = options.secrets ?? createSecretBox(randomBytes(32));
  const metrics = createMetrics(db.prisma);
  const requestBounds: RequestBounds = { ...loadConfig({}).requestBounds, ...options.requestBounds };
  const app = createApp({
    events,
    secrets,
    metrics,
    readiness: createReadiness({ prisma: db.prisma, redis: options.redis ?? events.redis }),
    config: {
      maxBodyBytes: options.maxBodyBytes ?? 10 * 1024 * 1024,
      tokenLastUsedResolutionMs: 0,
      tokenCacheTtlMs: options.tokenCacheTtlMs ?? 0,
      trustProxy: options.trustProxy ?? false,
      graphqlLimits: loadConfig({}).graphqlLimits,
      requestBounds,
      corsOrigins: options.corsOrigins ?? [],
      ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
    },
    // Tests send many requests per minute; the rate-limit tests pass their own limiters.
    rateLimiters: options.rateLimiters ?? createRateLimiters({ readPerMinute: 1_000_000, writePerMinute: 1_000_000 }),
    accounts: {
      mailer: { sendPasswordReset: async () => undefined },
      limiters: createAccountLimiters(undefined, `test-${randomBytes(4).toString('hex')}`),
      registration: 'closed',
      sessionTtlMs: 3_600_000,
      ...options.accounts,
    },
    db,
    logger: options.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
  });
  const server: Server = createServer(app);
  const websockets = attachGraphqlWs(server, app, { prisma: db.prisma, lastUsedResolutionMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { token } = await createToken(db.prisma, `test-${Math.random().toString(36).slice(2)}`);
  // As the server: revocations made in the database by the CLI reach this process (src/server.ts).
  const revocations =
    options.listenForRevocations === false
      ? undefined
      : listenForRevocations(db.url, { logger: pino({ level: 'silent' }), onRevoked: () => events.publishRevocation() });

  const request: TestServer['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const bearer = options.token === undefined ? token : options.token;
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    return readResponse(await fetch(`${url}${path}`, { method, headers, body: body ?? null }));
  };

  return {
    url,
    token,
    requestBounds,
    events,
    secrets,
    request,
    graphql: (query, variables) => request('POST', '/graphql', { body: { query, variables } }),
    async close() {
      await revocations?.close();
      await websockets.close();
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
      if (!options.events) await events.close();
    },
  };
}

/** A GraphQL operation as `token` (an admin's, say): the answer's data; its errors, if any, thrown. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test states the data it expects
export async function graphqlData<T = any>(api: TestServer, token: string, query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await api.request('POST', '/graphql', { token, body: { query, variables } });
  if (res.body?.errors) throw new Error(JSON.stringify(res.body.errors));
  return res.body.data as T;
}

/** A fetch answer as tests read it: its status, headers and text, and the text's JSON when it is JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test states the body it expects
export async function readResponse<T = any>(response: Response): Promise<JsonResponse<T>> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export type ApiFixture = { readonly db: TestDatabase; readonly api: TestServer };

/**
 * Registers beforeAll/afterAll hooks that give a describe block its own migrated database and a
 * running server; read `db` and `api` inside tests.
 */
export function useApiFixture(backend: Backend, options?: Parameters<typeof startTestServer>[1]): ApiFixture {
  let db: TestDatabase | undefined;
  let api: TestServer | undefined;
  beforeAll(async () => {
    db = await openTestDatabase(backend);
    api = await startTestServer(db, options);
  });
  afterAll(async () => {
    await api?.close();
    await db?.close();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the API fixture is only available inside tests');
    return value;
  };
  return {
    get db() {
      return ready(db);
    },
    get api() {
      return ready(api);
    },
  };
}

export type ReplicasFixture = { readonly db: TestDatabase; readonly a: TestServer; readonly b: TestServer };

/**
 * Registers beforeAll/afterAll hooks that give a describe block two servers (replicas A and B) on
 * one database of the embedded test cluster, their live events fanned out through the Redis at
 * `redisUrl`. The Redis of a test run is shared by its suites: find events by what is yours.
 */
export function useRedisReplicas(redisUrl: string, options: Parameters<typeof startTestServer>[1] = {}): ReplicasFixture {
  let db: TestDatabase | undefined;
  let a: TestServer | undefined;
  let b: TestServer | undefined;
  beforeAll(async () => {
    db = await openTestDatabase('embedded');
    a = await startTestServer(db, { ...options, events: createEventHub({ redisUrl }) });
    b = await startTestServer(db, { ...options, events: createEventHub({ redisUrl }) });
  });
  afterAll(async () => {
    for (const replica of [a, b]) await replica?.close();
    for (const replica of [a, b]) await replica?.events.close();
    await db?.close();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the replicas are only available inside tests');
    return value;
  };
  return {
    get db() {
      return ready(db);
    },
    get a() {
      return ready(a);
    },
    get b() {
      return ready(b);
    },
  };
}

/**
 * A clean queue holding one delivery: a webhook configuration for product failures (to a port
 * nothing answers on, for tests that never send it) and one failure reported through the API.
 */
export async function queueOneDelivery(ctx: ApiFixture, externalId: string): Promise<void> {
  await clearDeliveries(ctx.db.prisma);
  await createIdleWebhook(ctx.db.prisma, ctx.api.secrets, { direction: 'to_webshop', secret: `queued-secret-${externalId}-0123` });
  const res = await ctx.api.request('POST', '/api/v1/failures', {
    body: { entity_type: 'product', external_id: externalId, source: 'erp', error_message: 'x' },
  });
  if (res.status !== 201) throw new Error(`the failure report answered ${res.status}`);
}
