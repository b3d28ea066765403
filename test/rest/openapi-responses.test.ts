import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { createAdminAccount } from '../../src/accounts/account.service';
import { createToken, verifyToken } from '../../src/auth/token.service';
import { IDEMPOTENCY_HEADER, requestFingerprint } from '../../src/idempotency/idempotency-key';
import { claimKey } from '../../src/idempotency/idempotency.service';
import { createLimiter, createRateLimiters } from '../../src/rate-limits/limiters';
import { restRoutes } from '../../src/rest/routes';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { backends } from '../support/database';
import { openFaultyDatabase, type DatabaseFault, type FaultyDatabase } from '../support/faulty-database';
import { startTestServer, type JsonResponse, type TestServer } from '../support/http';

/**
 * The OpenAPI document served at /api/doc tells the truth: every operation it lists is called
 * here, every status it documents for an operation is produced by a real request, every answer
 * has a documented status, and its body and headers validate against the document's own schemas
 * (Ajv with ajv-formats, OpenAPI 3.0's `nullable` included). A new route without a case fails.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the OpenAPI document is loose JSON

type Call = {
  method: string;
  path: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** undefined: the integration token; null: none. */
  token?: string | null;
  /** Sent to the app whose registration is closed. */
  registrationClosed?: boolean;
};
type Case = {
  label: string;
  /** The status this case is built to produce; undefined: any status the operation documents. */
  expect?: number;
  call: Call;
  /** Put the service in the state the case needs (a fault, an exhausted budget), and take it back after. */
  around?: (run: () => Promise<JsonResponse>) => Promise<JsonResponse>;
};
type Operation = { key: string; method: string; template: string; op: Json };

/** Request size limit of the app under test: small, so that a 413 body is cheap. */
const MAX_BODY_BYTES = 64 * 1024;
const PASSWORD = 'correct horse battery staple';

describe.each(backends)('the OpenAPI document against real responses on %s', (backend) => {
  let db: FaultyDatabase;
  let api: TestServer;
  /** The same database behind registration "closed" (register's 403). */
  let closedApi: TestServer;
  let doc: Json;
  let ajv: Ajv;
  const limiters = createRateLimiters({ readPerMinute: 1_000_000, writePerMinute: 1_000_000 });
  const resetTokens: string[] = [];
  const f = {} as {
    admin: string;
    other: string;
    tokenKey: string;
    products: number[];
    partners: number[];
    saleOrder: number;
    stocks: number[];
    priceItems: number[];
    purchaseOrders: number[];
    failure: number;
    queueFailed: number;
    queuePending: number;
    webhook: number;
  };

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
    const mailer = { sendPasswordReset: async (_to: string, token: string) => void resetTokens.push(token) };
    api = await startTestServer(db, {
      maxBodyBytes: MAX_BODY_BYTES,
      rateLimiters: limiters,
      accounts: { registration: 'open', mailer, limiters: accountLimiters() },
    });
    closedApi = await startTestServer(db, { accounts: { registration: 'closed', limiters: accountLimiters() } });
    doc = (await api.request('GET', '/api/doc', { token: null })).body;
    ajv = documentValidator(doc);
    await seed();
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
    const response = await fetch(`${server.url}${call.path}`, { method: call.method, headers, body, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  const example = (method: string, path: string) => restRoutes.find((r) => r.method === method && r.path === path)!.example;

  /** Records of every kind, listed once to the integration token so that acknowledgements have something to cover. */
  async function seed() {
    f.admin = (await createToken(db.prisma, `oa-admin-${backend}`, 'admin')).token;
    f.other = (await createToken(db.prisma, `oa-other-${backend}`)).token;
    f.tokenKey = (await verifyToken(db.prisma, api.token, { lastUsedResolutionMs: 0 }))!.key;
    await createAdminAccount(db.prisma, { email: 'admin@example.com', password: PASSWORD });

    const products = Array.from({ length: 4 }, (_, i) => ({
      external_id: `OA-${i}`,
      name: `Product ${i}`,
      price: 2 + i,
      pricelists: [{ pricelist_external_id: 'PL-OA', pricelist_name: 'Retail', price: 10 + i }],
    }));
    await ok({ method: 'POST', path: '/api/v1/products', body: { products } });
    const partners = [
      { external_id: 'OA-B', type: 'B', name: 'Billing' },
      { external_id: 'OA-D', type: 'D', name: 'Delivery', parent_external_id: 'OA-B' },
    ];
    await ok({ method: 'POST', path: '/api/v1/partners', body: { partners } });
    await ok({ method: 'POST', path: '/api/v1/sale-orders', body: example('POST', '/v1/sale-orders').request });
    await ok({ method: 'POST', path: '/api/v1/stocks', body: example('POST', '/v1/stocks').request });
    await ok({ method: 'POST', path: '/api/v1/purchase-orders', body: example('POST', '/v1/purchase-orders').request });
    const ids = async (path: string) =>
      ((await ok({ method: 'GET', path: `${path}?limit=500` })).body.payload as Array<{ id: number }>).map((r) => r.id);
    f.products = await ids('/api/v1/updated-products');
    f.partners = await ids('/api/v1/updated-partners');
    [f.saleOrder] = (await ids('/api/v1/updated-sale-orders')) as [number];
    f.stocks = await ids('/api/v1/stocks/changed');
    f.priceItems = await ids('/api/v1/pricelists/updated');
    f.purchaseOrders = await ids('/api/v1/purchase-orders/updated');
    f.failure = (await ok({ method: 'POST', path: '/api/v1/failures', body: example('POST', '/v1/failures').request }, 201)).body.id;
    const queueItem = (status: string, i: number) =>
      db.prisma.outboundQueueItem.create({
        data: { status, attempts: 6, messageId: `msg_oa_${backend}_${i}`, payload: { event: 'sync_failure' } },
      });
    f.queueFailed = (await queueItem('failed', 1)).id;
    f.queuePending = (await queueItem('pending', 2)).id;
    f.webhook = (
      await createWebhook(db.prisma, api.secrets, { url: 'http://127.0.0.1:9/oa-hook', entityType: 'product', direction: 'to_erp' })
    ).id;
  }

  /**
   * Per operation: the call that succeeds, and the calls for the statuses that depend on the
   * route (unknown ids, conflicts, roles). The statuses every route shares (401, 400 for an unknown
   * parameter, 413, 415, 422 and 409 of Idempotency-Key, 429, 500, 503) are derived from the success call.
   */
  const CASES: Record<string, { success: () => Call; errors?: Record<number, () => Call> }> = {
    'POST /api/v1/products': { success: () => ({ method: 'POST', path: '/api/v1/products', body: { external_id: 'OA-9', price: 1 } }) },
    'GET /api/v1/updated-products': { success: () => ({ method: 'GET', path: '/api/v1/updated-products?limit=2' }) },
    'DELETE /api/v1/updated-products/{id}': {
      success: () => ({ method: 'DELETE', path: `/api/v1/updated-products/${f.products[0]}` }),
      errors: {
        404: () => ({ method: 'DELETE', path: '/api/v1/updated-products/999999' }),
        409: () => ({ method: 'DELETE', path: `/api/v1/updated-products/${f.products[3]}`, token: f.other }),
      },
    },
    'POST /api/v1/updated-products/batch-delete': {
      success: () => ({ method: 'POST', path: '/api/v1/updated-products/batch-delete', body: { ids: [f.products[1], 999999] } }),
    },
    'GET /api/v1/pricelists/updated': { success: () => ({ method: 'GET', path: '/api/v1/pricelists/updated' }) },
    'POST /api/v1/pricelists/updated/batch-delete': {
      success: () => ({ method: 'POST', path: '/api/v1/pricelists/updated/batch-delete', body: { ids: f.priceItems.slice(0, 1) } }),
    },
    'GET /api/v1/pricelists': { success: () => ({ method: 'GET', path: '/api/v1/pricelists' }) },
    'GET /api/v1/pricelists/{pricelistId}/items': {
      success: () => ({ method: 'GET', path: '/api/v1/pricelists/PL-OA/items' }),
      errors: { 404: () => ({ method: 'GET', path: '/api/v1/pricelists/NO-SUCH-LIST/items' }) },
    },
    'POST /api/v1/partners': {
      success: () => ({ method: 'POST', path: '/api/v1/partners', body: { partners: [{ external_id: 'OA-P9', type: 'B', name: 'P9' }] } }),
    },
    'GET /api/v1/updated-partners': { success: () => ({ method: 'GET', path: '/api/v1/updated-partners' }) },
    'DELETE /api/v1/updated-partners/{id}': {
      success: () => ({ method: 'DELETE', path: `/api/v1/updated-partners/${f.partners[0]}` }),
      errors: {
        404: () => ({ method: 'DELETE', path: '/api/v1/updated-partners/999999' }),
        409: () => ({ method: 'DELETE', path: `/api/v1/updated-partners/${f.partners.at(-1)}`, token: f.other }),
      },
    },
    'POST /api/v1/updated-partners/batch-delete': {
      success: () => ({ method: 'POST', path: '/api/v1/updated-partners/batch-delete', body: { ids: [999999] } }),
    },
    'GET /api/v1/updated-partners/{id}/hierarchy': {
      success: () => ({ method: 'GET', path: `/api/v1/updated-partners/${f.partners.at(-1)}/hierarchy` }),
      errors: { 404: () => ({ method: 'GET', path: '/api/v1/updated-partners/999999/hierarchy' }) },
    },
    'POST /api/v1/sale-orders': {
      success: () => ({ method: 'POST', path: '/api/v1/sale-orders', body: { external_id: 'OA-SO9', direction: 'outbound' } }),
    },
    'GET /api/v1/updated-sale-orders': { success: () => ({ method: 'GET', path: '/api/v1/updated-sale-orders?direction=inbound' }) },
    'DELETE /api/v1/updated-sale-orders/{id}': {
      success: () => ({ method: 'DELETE', path: `/api/v1/updated-sale-orders/${f.saleOrder}?revision=1` }),
      errors: {
        404: () => ({ method: 'DELETE', path: '/api/v1/updated-sale-orders/999999' }),
        409: () => ({ method: 'DELETE', path: `/api/v1/updated-sale-orders/${f.saleOrder}`, token: f.other }),
      },
    },
    'POST /api/v1/updated-sale-orders/batch-delete': {
      success: () => ({ method: 'POST', path: '/api/v1/updated-sale-orders/batch-delete', body: { items: [{ id: 999999, revision: 1 }] } }),
    },
    'POST /api/v1/stocks': {
      success: () => ({
        method: 'POST',
        path: '/api/v1/stocks',
        body: { stocks: [{ supplier_external_id: 'SUP-OA', product_external_id: 'OA-1', quantity: 5 }] },
      }),
    },
    'GET /api/v1/stocks/changed': { success: () => ({ method: 'GET', path: '/api/v1/stocks/changed' }) },
    'POST /api/v1/stocks/changed/batch-delete': {
      success: () => ({ method: 'POST', path: '/api/v1/stocks/changed/batch-delete', body: { ids: f.stocks } }),
    },
    'GET /api/v1/stocks/by-supplier/{supplierId}': { success: () => ({ method: 'GET', path: '/api/v1/stocks/by-supplier/SUP-3' }) },
    'GET /api/v1/stocks/by-product/{productId}': { success: () => ({ method: 'GET', path: '/api/v1/stocks/by-product/SKU-1001' }) },
    'GET /api/v1/stocks/lookup': {
      success: () => ({ method: 'GET', path: '/api/v1/stocks/lookup?supplier_id=SUP-3&product_id=SKU-1001' }),
      errors: { 404: () => ({ method: 'GET', path: '/api/v1/stocks/lookup?supplier_id=SUP-3&product_id=NO-SUCH' }) },
    },
    'POST /api/v1/purchase-orders': {
      success: () => ({ method: 'POST', path: '/api/v1/purchase-orders', body: example('POST', '/v1/purchase-orders').request }),
    },
    'GET /api/v1/purchase-orders/updated': { success: () => ({ method: 'GET', path: '/api/v1/purchase-orders/updated' }) },
    'POST /api/v1/purchase-orders/updated/batch-delete': {
      success: () => ({ method: 'POST', path: '/api/v1/purchase-orders/updated/batch-delete', body: { ids: f.purchaseOrders } }),
    },
    'GET /api/v1/purchase-orders/{id}': {
      success: () => ({ method: 'GET', path: `/api/v1/purchase-orders/${f.purchaseOrders[0]}` }),
      errors: { 404: () => ({ method: 'GET', path: '/api/v1/purchase-orders/999999' }) },
    },
    'POST /api/v1/failures': {
      success: () => ({ method: 'POST', path: '/api/v1/failures', body: example('POST', '/v1/failures').request }),
    },
    'GET /api/v1/failures': { success: () => ({ method: 'GET', path: '/api/v1/failures?status=open' }) },
    'GET /api/v1/failures/{id}': {
      success: () => ({ method: 'GET', path: `/api/v1/failures/${f.failure}` }),
      errors: { 404: () => ({ method: 'GET', path: '/api/v1/failures/999999' }) },
    },
    'POST /api/v1/failures/{id}/resolve': {
      success: () => ({ method: 'POST', path: `/api/v1/failures/${f.failure}/resolve`, body: { note: 'fixed' } }),
      errors: { 404: () => ({ method: 'POST', path: '/api/v1/failures/999999/resolve' }) },
    },
    'POST /api/v1/updates/{entityType}/{id}/ack': {
      success: () => ({ method: 'POST', path: `/api/v1/updates/product/${f.products[2]}/ack`, body: { note: 'done' } }),
      errors: {
        404: () => ({ method: 'POST', path: '/api/v1/updates/product/999999/ack' }),
        409: () => ({ method: 'POST', path: `/api/v1/updates/product/${f.products[3]}/ack`, token: f.other }),
      },
    },
    'GET /api/v1/outbound-queue/stats': { success: () => ({ method: 'GET', path: '/api/v1/outbound-queue/stats' }) },
    'GET /api/v1/outbound-queue': { success: () => ({ method: 'GET', path: '/api/v1/outbound-queue?status=failed' }) },
    'POST /api/v1/outbound-queue/{id}/retry': {
      success: () => ({ method: 'POST', path: `/api/v1/outbound-queue/${f.queueFailed}/retry` }),
      errors: {
        404: () => ({ method: 'POST', path: '/api/v1/outbound-queue/999999/retry' }),
        409: () => ({ method: 'POST', path: `/api/v1/outbound-queue/${f.queuePending}/retry` }),
      },
    },
    'POST /api/v1/outbound-queue/retry-failed': {
      success: () => ({ method: 'POST', path: '/api/v1/outbound-queue/retry-failed', body: { maxAttempts: 6 } }),
    },
    'POST /api/v1/webhooks/{id}/test': {
      success: () => ({ method: 'POST', path: `/api/v1/webhooks/${f.webhook}/test`, token: f.admin }),
      errors: {
        403: () => ({ method: 'POST', path: `/api/v1/webhooks/${f.webhook}/test` }),
        404: () => ({ method: 'POST', path: '/api/v1/webhooks/999999/test', token: f.admin }),
      },
    },
    'POST /api/v1/auth/login': {
      success: () => ({
        method: 'POST',
        path: '/api/v1/auth/login',
        token: null,
        body: { email: 'admin@example.com', password: PASSWORD },
      }),
      errors: {
        401: () => ({
          method: 'POST',
          path: '/api/v1/auth/login',
          token: null,
          body: { email: 'admin@example.com', password: 'not the password at all' },
        }),
      },
    },
    'POST /api/v1/auth/register': {
      success: () => ({
        method: 'POST',
        path: '/api/v1/auth/register',
        token: null,
        body: { email: 'new@example.com', password: PASSWORD },
      }),
      errors: {
        403: () => ({
          method: 'POST',
          path: '/api/v1/auth/register',
          token: null,
          body: { email: 'x@example.com', password: PASSWORD },
          registrationClosed: true,
        }),
        409: () => ({
          method: 'POST',
          path: '/api/v1/auth/register',
          token: null,
          body: { email: 'admin@example.com', password: PASSWORD },
        }),
      },
    },
    'POST /api/v1/auth/password-reset': {
      success: () => ({ method: 'POST', path: '/api/v1/auth/password-reset', token: null, body: { email: 'admin@example.com' } }),
    },
    'POST /api/v1/auth/password-reset/confirm': {
      success: () => ({
        method: 'POST',
        path: '/api/v1/auth/password-reset/confirm',
        token: null,
        body: { token: resetTokens.at(-1), password: PASSWORD },
      }),
      errors: {
        400: () => ({
          method: 'POST',
          path: '/api/v1/auth/password-reset/confirm',
          token: null,
          body: { token: 'used-up', password: PASSWORD },
        }),
      },
    },
    'GET /health': { success: () => ({ method: 'GET', path: '/health', token: null }) },
    'GET /ready': { success: () => ({ method: 'GET', path: '/ready', token: null }) },
    'GET /metrics': { success: () => ({ method: 'GET', path: '/metrics' }) },
    'GET /api/doc': {
      success: () => ({ method: 'GET', path: '/api/doc', token: null }),
      errors: { 303: () => ({ method: 'GET', path: '/api/doc', token: null, headers: { accept: 'text/html' } }) },
    },
    'GET /api/reference': { success: () => ({ method: 'GET', path: '/api/reference', token: null }) },
    'GET /.well-known/ai-context': { success: () => ({ method: 'GET', path: '/.well-known/ai-context', token: null }) },
  };

  /** The cases every operation gets from its success call. */
  function sharedCases(operation: Operation, success: Call): Case[] {
    const { op, method } = operation;
    const rest = operation.template.startsWith('/api/v1/');
    const secured = op.security === undefined || op.security.length > 0;
    const idempotent = (op.parameters ?? []).some((p: Json) => p.$ref === '#/components/parameters/IdempotencyKey');
    const withQuery = (path: string, extra: string) => `${path}${path.includes('?') ? '&' : '?'}${extra}`;
    const cases: Case[] = [];
    if (secured) cases.push({ label: 'no token', expect: 401, call: { ...success, token: null } });
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
    if (!cases) throw new Error(`No case for ${operation.key}: add one to CASES`);
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
      expect({ where, problems: responseProblems(live, res) }).toEqual({ where, problems: [] });
      produced.add(String(res.status));
    }
    expect({ operation: operation.key, produced: [...produced].sort() }).toEqual({
      operation: operation.key,
      produced: Object.keys(live.op.responses).sort(),
    });
  });

  /** What is wrong with an answer by the document: its status, content type, body or headers. */
  function responseProblems(operation: Operation, res: JsonResponse): string[] {
    const pointer = `#/paths/${escape(operation.template)}/${operation.method.toLowerCase()}/responses/${res.status}`;
    let documented: Json | undefined = operation.op.responses[String(res.status)];
    if (!documented) return [`status ${res.status} is not documented`];
    let base = pointer;
    if (documented.$ref) {
      base = documented.$ref;
      documented = resolve(doc, documented.$ref);
    }
    const problems: string[] = [];
    const type = res.headers.get('content-type')?.split(';')[0]?.trim();
    const content: Json = documented!.content ?? {};
    if (Object.keys(content).length === 0) {
      if (res.text !== '') problems.push(`a body where none is documented (${type})`);
    } else if (!type || !content[type]) {
      problems.push(`content type ${type} is not among ${Object.keys(content).join(', ')}`);
    } else if (type === 'application/json') {
      const validate = ajv.getSchema(`openapi.json${base}/content/application~1json/schema`) as ValidateFunction;
      if (!validate(res.body)) problems.push(...(validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message}`));
    }
    for (const [name, header] of Object.entries((documented!.headers ?? {}) as Json)) {
      const spec: Json = header.$ref ? resolve(doc, header.$ref) : header;
      const value = res.headers.get(name);
      if (value === null) {
        if (spec.required) problems.push(`header ${name} is missing`);
        continue;
      }
      const typed = spec.schema?.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (!ajv.validate(spec.schema, typed)) problems.push(`header ${name}: ${value} ${ajv.errorsText()}`);
    }
    return problems;
  }
});

const json = { 'content-type': 'application/json' };

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

function resolve(doc: Json, ref: string): Json {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<Json>((node, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** Ajv over the whole document, so that every `#/components/...` reference resolves as in the document. */
function documentValidator(doc: Json): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
  addFormats(ajv);
  // OpenAPI's annotations, and the document's own members that hold schemas.
  ajv.addVocabulary(['example', 'openapi', 'info', 'servers', 'security', 'tags', 'paths', 'components']);
  ajv.addSchema({ ...closed(structuredClone(doc)), $id: 'openapi.json' });
  return ajv;
}

/**
 * An answer must not carry fields the document does not name: every object schema that lists its
 * properties (and says nothing of others) is closed for the check. The document itself stays open,
 * so that clients tolerate fields added later.
 */
function closed(node: unknown): Json {
  if (Array.isArray(node)) node.forEach(closed);
  else if (node && typeof node === 'object') {
    const schema = node as Json;
    if (schema.properties && typeof schema.properties === 'object' && schema.additionalProperties === undefined && !schema.allOf) {
      schema.additionalProperties = false;
    }
    Object.values(schema).forEach(closed);
  }
  return node as Json;
}
