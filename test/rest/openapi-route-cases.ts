import { createAdminAccount } from '../../src/accounts/account.service';
import { createToken, verifyToken } from '../../src/auth/token.service';
import type { PrismaClient } from '../../src/generated/prisma/client';
import { restRoutes } from '../../src/modules';
import type { SecretBox } from '../../src/deliveries/secret-box';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { createChannel } from '../../src/channels/channel.service';
import type { JsonResponse } from '../support/http';
import type { QueueStatus } from '../../src/generated/prisma/enums';

/** One request of a case. */
export type Call = {
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

/** The call that succeeds, and the calls of the statuses only this route answers. */
export type RouteCases = { success: () => Call; errors?: Record<number, () => Call> };

/** Records and credentials the cases name. */
export type Fixtures = {
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
  /** Password-reset tokens as mailed. */
  resetTokens: string[];
};

export const PASSWORD = 'correct horse battery staple';

const example = (method: string, path: string) => restRoutes.find((r) => r.method === method && r.path === path)!.example;

/** Records of every kind, listed once to the integration token so that acknowledgements have something to cover. */
export async function seedFixtures(ctx: {
  prisma: PrismaClient;
  secrets: SecretBox;
  token: string;
  backend: string;
  ok: (call: Call, status?: number) => Promise<JsonResponse>;
}): Promise<Omit<Fixtures, 'resetTokens'>> {
  const { prisma, ok, backend } = ctx;
  const f = {} as Omit<Fixtures, 'resetTokens'>;
  f.admin = (await createToken(prisma, `oa-admin-${backend}`, 'admin')).token;
  f.other = (await createToken(prisma, `oa-other-${backend}`)).token;
  f.tokenKey = (await verifyToken(prisma, ctx.token, { lastUsedResolutionMs: 0 }))!.key;
  await createAdminAccount(prisma, { email: 'admin@example.com', password: PASSWORD });

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
  const queueItem = (status: QueueStatus, i: number) =>
    prisma.outboundQueueItem.create({
      data: { status, attempts: 6, messageId: `msg_oa_${backend}_${i}`, payload: { event: 'sync_failure' } },
    });
  f.queueFailed = (await queueItem('failed', 1)).id;
  f.queuePending = (await queueItem('pending', 2)).id;
  await createChannel(prisma, 'oa-gone');
  await createChannel(prisma, 'oa-push');
  f.webhook = (
    await createWebhook(prisma, ctx.secrets, { url: 'http://127.0.0.1:9/oa-hook', entityType: 'product', direction: 'to_erp' })
  ).id;
  return f;
}

/**
 * Per operation: the call that succeeds, and the calls for the statuses that depend on the
 * route (unknown ids, conflicts, roles). The statuses every route shares (401, 400 for an unknown
 * parameter, 413, 415, 422 and 409 of Idempotency-Key, 429, 500, 503) are derived from the success call.
 */
export function routeCases(f: Fixtures): Record<string, RouteCases> {
  return {
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
    'POST /api/v1/resync': {
      success: () => ({ method: 'POST', path: '/api/v1/resync', token: f.admin, body: { entity_type: 'product', external_ids: ['OA-0'] } }),
      errors: { 403: () => ({ method: 'POST', path: '/api/v1/resync', body: { entity_type: 'product' } }) },
    },
    'GET /api/v1/reconciliation': { success: () => ({ method: 'GET', path: '/api/v1/reconciliation' }) },
    'POST /api/v1/reconciliation/{entityType}': {
      success: () => ({
        method: 'POST',
        path: '/api/v1/reconciliation/product',
        body: { items: [{ external_id: 'OA-0', digest: '0'.repeat(64) }] },
      }),
      errors: {
        // Comparing is open to the webshop's token; resyncing in the same call needs role admin.
        403: () => ({
          method: 'POST',
          path: '/api/v1/reconciliation/product',
          body: { items: [{ external_id: 'OA-0', digest: '0'.repeat(64) }], resync: true },
        }),
      },
    },
    'GET /api/v1/history/{entityType}/{externalId}': {
      success: () => ({ method: 'GET', path: '/api/v1/history/product/OA-0?limit=5' }),
      errors: { 404: () => ({ method: 'GET', path: '/api/v1/history/product/NO-SUCH-PRODUCT' }) },
    },
    'GET /api/v1/outbound-queue/stats': { success: () => ({ method: 'GET', path: '/api/v1/outbound-queue/stats' }) },
    'GET /api/v1/outbound-queue': { success: () => ({ method: 'GET', path: '/api/v1/outbound-queue?status=failed' }) },
    'GET /api/v1/outbound-queue/{id}': {
      success: () => ({ method: 'GET', path: `/api/v1/outbound-queue/${f.queueFailed}` }),
      errors: { 404: () => ({ method: 'GET', path: '/api/v1/outbound-queue/999999' }) },
    },
    'POST /api/v1/outbound-queue/recover': {
      success: () => ({ method: 'POST', path: '/api/v1/outbound-queue/recover', body: { since: '2026-01-01T00:00:00Z' } }),
    },
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
    'GET /api/v1/webhooks': {
      success: () => ({ method: 'GET', path: '/api/v1/webhooks', token: f.admin }),
      errors: { 403: () => ({ method: 'GET', path: '/api/v1/webhooks' }) },
    },
    'GET /api/v1/webhooks/{id}': {
      success: () => ({ method: 'GET', path: `/api/v1/webhooks/${f.webhook}`, token: f.admin }),
      errors: {
        403: () => ({ method: 'GET', path: `/api/v1/webhooks/${f.webhook}` }),
        404: () => ({ method: 'GET', path: '/api/v1/webhooks/999999', token: f.admin }),
      },
    },
    'POST /api/v1/webhooks/{id}/test': {
      success: () => ({ method: 'POST', path: `/api/v1/webhooks/${f.webhook}/test`, token: f.admin }),
      errors: {
        403: () => ({ method: 'POST', path: `/api/v1/webhooks/${f.webhook}/test` }),
        404: () => ({ method: 'POST', path: '/api/v1/webhooks/999999/test', token: f.admin }),
      },
    },
    'GET /api/v1/channels': {
      success: () => ({ method: 'GET', path: '/api/v1/channels', token: f.admin }),
      errors: { 403: () => ({ method: 'GET', path: '/api/v1/channels' }) },
    },
    'POST /api/v1/channels': {
      success: () => ({ method: 'POST', path: '/api/v1/channels', token: f.admin, body: { name: 'oa-new', from: 'all' } }),
      errors: {
        400: () => ({ method: 'POST', path: '/api/v1/channels', token: f.admin, body: { name: 'Not A Name' } }),
        403: () => ({ method: 'POST', path: '/api/v1/channels', body: { name: 'oa-refused' } }),
        409: () => ({ method: 'POST', path: '/api/v1/channels', token: f.admin, body: { name: 'default' } }),
      },
    },
    'DELETE /api/v1/channels/{name}': {
      success: () => ({ method: 'DELETE', path: '/api/v1/channels/oa-gone', token: f.admin }),
      errors: {
        403: () => ({ method: 'DELETE', path: '/api/v1/channels/oa-gone' }),
        404: () => ({ method: 'DELETE', path: '/api/v1/channels/no-such-channel', token: f.admin }),
        409: () => ({ method: 'DELETE', path: '/api/v1/channels/default', token: f.admin }),
      },
    },
    'POST /api/v1/channels/{name}/push': {
      success: () => ({
        method: 'POST',
        path: '/api/v1/channels/oa-push/push',
        token: f.admin,
        body: { url: 'http://127.0.0.1:9/oa-changes', batchSize: 10 },
      }),
      errors: {
        400: () => ({ method: 'POST', path: '/api/v1/channels/oa-push/push', token: f.admin, body: { url: 'ftp://x', batchSize: 0 } }),
        403: () => ({ method: 'POST', path: '/api/v1/channels/oa-push/push', body: { url: 'http://127.0.0.1:9/x' } }),
        404: () => ({ method: 'POST', path: '/api/v1/channels/no-such/push', token: f.admin, body: { url: 'http://127.0.0.1:9/x' } }),
      },
    },
    'DELETE /api/v1/channels/{name}/push': {
      success: () => ({ method: 'DELETE', path: '/api/v1/channels/oa-push/push', token: f.admin }),
      errors: {
        403: () => ({ method: 'DELETE', path: '/api/v1/channels/oa-push/push' }),
        404: () => ({ method: 'DELETE', path: '/api/v1/channels/no-such/push', token: f.admin }),
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
        body: { token: f.resetTokens.at(-1), password: PASSWORD },
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
}
