import { ROLES, type Role } from '../../src/auth/roles';
import { createToken, verifyToken } from '../../src/auth/token.service';
import { IDEMPOTENCY_HEADER, requestFingerprint } from '../../src/idempotency/idempotency-key';
import { claimKey } from '../../src/idempotency/idempotency.service';
import { createLimiter, createRateLimiters } from '../../src/rate-limits/limiters';
import { backends } from '../support/database';
import { openFaultyDatabase, type DatabaseFault, type FaultyDatabase } from '../support/faulty-database';
import { readResponse, startTestServer, type JsonResponse, type TestServer } from '../support/http';
import { documentValidator, responseProblems, type Json, type Operation } from '../support/openapi-validation';
import { routeCases, seedFixtures, type Call, type Fixtures } from './openapi-route-cases';

/**
 * The OpenAPI document served at /api/doc tells the truth (ADR 0024): every operation it lists is
 * called here, every status it documents for an operation is produced by a real request, every
 * answer has a documented status, and its body and headers validate against the document's own
 * schemas (Ajv with ajv-formats). An operation without a case in openapi-route-cases.ts fails.
 */

type Case = {
  label: string;
  /** The status this case is built to produce; undefined: any status the operation documents. */
  expect?: number;
  call: Call;
  /** Put the service in the state the case needs (a fault, an exhausted budget), and take it back after. */
  around?: (run: () => Promise<JsonResponse>) => Promise<JsonResponse>;
};

/** Request size limit of the app under test: small, so that a 413 body is cheap. */
const MAX_BODY_BYTES = 64 * 1024;

describe.each(backends)('the OpenAPI document against real responses on %s', (backend) => {
  let db: FaultyDatabase;
  let api: TestServer;
  /** The same database behind registration "closed" (register's 403). */
  let closedApi: TestServer;
  let doc: Json;
  let ajv: ReturnType<typeof documentValidator>;
  const limiters = createRateLimiters({ readPerMinute: 1_000_000, writePerMinute: 1_000_000 });
  const f = { resetTokens: [] } as unknown as Fixtures;
  /** A token of every role, for each operation's 403 (a role its x-roles leaves out). */
  const roleTokens = {} as Record<Role, string>;

  const accountLimiters = () => {
    const make = (name: string) => createLimiter({ points: 1_000, durationSeconds: 60, keyPrefix: `oa-${backend}-${name}` });
    return {
      loginByIp: make('login-ip'),
      loginByAccount: make('login-account'),
      registerByIp: make('register-ip'),
      resetByIp: make('reset-ip'),
      resetByAccount: make('reset-account'),
      confirmByIp: make('confirm-ip'),
    };
  };

  beforeAll(async () => {
    db = await openFaultyDatabase(backend);
    const mailer = { sendPasswordReset: async (_to: string, token: string) => void f.resetTokens.push(token) };
    api = await startTestServer(db, {
      maxBodyBytes: MAX_BODY_BYTES,
      rateLimiters: limiters,
      accounts: { registration: 'open', mailer, limiters: accountLimiters() },
    });
    closedApi = await startTestServer(db, { accounts: { registration: 'closed', limiters: accountLimiters() } });
    doc = (await api.request('GET', '/api/doc', { token: null })).body;
    ajv = documentValidator(doc);
    for (const role of ROLES) roleTokens[role] = (await createToken(db.prisma, `oa-${backend}-${role}`, role)).token;
    Object.assign(f, await seedFixtures({ prisma: db.prisma, secrets: api.secrets, token: api.token, backend, ok }));
  });
  afterAll(async () => {
    await closedApi?.close();
    await api?.close();
    await db?.close();
  });

  const ok = async (call: Call, status = 200): Promise<JsonResponse> => {
    const res = await send(call);
    if (res.status !== status) throw new Error(`${call.method} ${call.path}: ${res.status} ${res.text}`);
    return res;
  };
  /** Like TestServer.request, but a redirect is an answer of its own (303 of /api/doc). */
  const send = async (call: Call): Promise<JsonResponse> => {
    const headers: Record<string, string> = { ...call.headers };
    const token = call.token === undefined ? api.token : call.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body = call.rawBody;
    if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] ??= 'application/json';
    }
    const server = call.registrationClosed ? closedApi : api;
    return readResponse(await fetch(`${server.url}${call.path}`, { method: call.method, headers, body: body ?? null, redirect: 'manual' }));
  };

  const CASES = routeCases(f);

  /** The cases every operation gets from its success call. */
  function sharedCases(operation: Operation, success: Call): Case[] {
    const { op, method } = operation;
    const rest = operation.template.startsWith('/api/v1/');
    const secured = op.security === undefined || op.security.length > 0;
    const idempotent = (op.parameters ?? []).some((p: Json) => p.$ref === '#/components/parameters/IdempotencyKey');
    const withQuery = (path: string, extra: string) => `${path}${path.includes('?') ? '&' : '?'}${extra}`;
    const cases: Case[] = [];
    if (secured) cases.push({ label: 'no token', expect: 401, call: { ...success, token: null } });
    const refused = ROLES.find((role) => Array.isArray(op['x-roles']) && !op['x-roles'].includes(role));
    if (refused) cases.push({ label: `a token of role ${refused}`, expect: 403, call: { ...success, token: roleTokens[refused] } });
    if (rest)
      cases.push({ label: 'unknown query parameter', expect: 400, call: { ...success, path: withQuery(success.path, 'no_such=1') } });
    if (rest && method !== 'GET') {
      const big = JSON.stringify({ padding: 'x'.repeat(MAX_BODY_BYTES) });
      cases.push({ label: 'body too large', expect: 413, call: { ...success, body: undefined, rawBody: big, headers: json } });
      cases.push({
        label: 'not JSON',
        expect: 415,
        call: { ...success, body: undefined, rawBody: 'x=1', headers: { 'content-type': 'text/plain' } },
      });
    }
    if (idempotent) {
      const key = `oa-${backend}-${operation.key}-reused`;
      cases.push({
        label: 'Idempotency-Key reused for another request',
        expect: 422,
        call: { ...success, headers: { ...success.headers, [IDEMPOTENCY_HEADER]: key } },
        around: async (run) => {
          // The first request under this key (a 400: answers of 4xx are kept too) differs from the second.
          const first = await send({ ...success, path: withQuery(success.path, 'no_such=1'), headers: { [IDEMPOTENCY_HEADER]: key } });
          expect(first.status).toBe(400);
          return run();
        },
      });
      const replayed = `oa-${backend}-${operation.key}-replayed`;
      cases.push({
        label: 'Idempotency-Key sent again with the same request',
        call: { ...success, headers: { ...success.headers, [IDEMPOTENCY_HEADER]: replayed } },
        around: async (run) => {
          await send({ ...success, headers: { ...success.headers, [IDEMPOTENCY_HEADER]: replayed } });
          const again = await run();
          expect(again.headers.get('idempotent-replayed')).toBe('true');
          return again;
        },
      });
      const running = `oa-${backend}-${operation.key}-running`;
      cases.push({
        label: 'Idempotency-Key of a request still running',
        expect: 409,
        call: { ...success, headers: { ...success.headers, [IDEMPOTENCY_HEADER]: running } },
        around: async (run) => {
          // Another replica holds the key for the same request and has not answered yet.
          const body = success.body === undefined ? '' : JSON.stringify(success.body);
          const fingerprint = requestFingerprint(success.method, new URL(`${api.url}${success.path}`), body);
          const scope = success.token ? (await verifyToken(db.prisma, success.token, { lastUsedResolutionMs: 0 }))!.key : f.tokenKey;
          expect((await claimKey(db.prisma, { scope, key: running }, fingerprint, 600_000)).kind).toBe('claimed');
          return run();
        },
      });
    }
    if (rest && method === 'GET') {
      cases.push({
        label: 'answer over MAX_RESPONSE_BYTES',
        expect: 422,
        call: success,
        around: async (run) => {
          const saved = api.requestBounds.maxResponseBytes;
          api.requestBounds.maxResponseBytes = 1; // every answer of a query is larger
          try {
            return await run();
          } finally {
            api.requestBounds.maxResponseBytes = saved;
          }
        },
      });
    }
    const probe = operation.template === '/health' || operation.template === '/ready';
    cases.push({
      label: 'rate limit used up',
      ...(probe ? {} : { expect: 429 }),
      call: success,
      around: async (run) => {
        const key = success.token === null ? 'ip:127.0.0.1' : success.token === undefined ? f.tokenKey : undefined;
        const keys = key ? [key] : ['ip:127.0.0.1', (await verifyToken(db.prisma, success.token!, { lastUsedResolutionMs: 0 }))!.key];
        for (const k of keys) for (const limiter of Object.values(limiters)) await limiter.penalty(k, 10_000_000);
        try {
          return await run();
        } finally {
          for (const k of keys) for (const limiter of Object.values(limiters)) await limiter.delete(k);
        }
      },
    });
    for (const [fault, status] of [
      ['outage', 503],
      ['internal', 500],
    ] as Array<[DatabaseFault, number]>) {
      cases.push({
        label: `database ${fault}`,
        ...(rest ? { expect: status } : {}),
        call: success,
        around: async (run) => {
          // Tokens still verify: the fault meets the route's own work.
          db.setFault(fault, (sql) => sql.includes('"api_tokens"'));
          try {
            return await run();
          } finally {
            db.setFault(undefined);
          }
        },
      });
    }
    return cases;
  }

  const operations: Operation[] = Object.entries(
    // The committed document, which the first test of openapi.test.ts proves to be the served one.
    require('../../openapi.json').paths as Json, // eslint-disable-line @typescript-eslint/no-require-imports -- a JSON file
  ).flatMap(([template, ops]) =>
    Object.entries(ops as Json).map(([method, op]) => ({
      key: `${method.toUpperCase()} ${template}`,
      method: method.toUpperCase(),
      template,
      op,
    })),
  );

  it('has a case for every operation of the document', () => {
    const missing = operations.map((o) => o.key).filter((key) => !CASES[key]);
    expect(missing).toEqual([]);
  });

  it.each(operations.map((o) => [o.key, o] as const))('%s answers only what the document says, all of it', async (_key, operation) => {
    const cases = CASES[operation.key];
    if (!cases) throw new Error(`No case for ${operation.key}: add one to openapi-route-cases.ts`);
    const live: Operation = { ...operation, op: doc.paths[operation.template][operation.method.toLowerCase()] };
    const success = cases.success();
    const all: Case[] = [
      { label: 'success', expect: Number(Object.keys(live.op.responses).find((s) => s.startsWith('2'))), call: success },
      ...Object.entries(cases.errors ?? {}).map(([status, call]) => ({
        label: `documented ${status}`,
        expect: Number(status),
        call: call(),
      })),
      ...sharedCases(live, success),
    ];
    const produced = new Set<string>();
    for (const c of all) {
      const run = () => send(c.call);
      const res = c.around ? await c.around(run) : await run();
      const where = `${operation.key} (${c.label}): ${res.status} ${res.text.slice(0, 300)}`;
      if (c.expect !== undefined) expect({ where, status: res.status }).toEqual({ where, status: c.expect });
      expect({ where, problems: responseProblems(doc, ajv, live, res) }).toEqual({ where, problems: [] });
      produced.add(String(res.status));
    }
    expect({ operation: operation.key, produced: [...produced].sort() }).toEqual({
      operation: operation.key,
      produced: Object.keys(live.op.responses).sort(),
    });
  });
});

const json = { 'content-type': 'application/json' };
