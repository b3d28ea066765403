import { createToken } from '../../src/auth/token.service';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { backends, clearDeliveries } from '../support/database';
import { failureReport as report } from '../support/failure-report';
import { useApiFixture } from '../support/http';

describe.each(backends)('failures over REST on %s', (backend) => {
  const ctx = useApiFixture(backend);

  beforeEach(async () => {
    await clearDeliveries(ctx.db.prisma);
  });

  const addWebhook = (entityType: 'product' | 'partner', direction: 'to_erp' | 'to_webshop', active = true) =>
    createWebhook(ctx.db.prisma, ctx.api.secrets, {
      url: 'http://127.0.0.1:9/hook',
      entityType,
      direction,
      secret: 'a-secret-of-16-chars',
      active,
    });

  it('stores a failure as open and queues one delivery per matching active configuration, in the opposite direction', async () => {
    await addWebhook('product', 'to_erp');
    await addWebhook('product', 'to_erp');
    await addWebhook('product', 'to_erp', false);
    await addWebhook('product', 'to_webshop');
    await addWebhook('partner', 'to_erp');

    const res = await ctx.api.request('POST', '/api/v1/failures', {
      body: report({ middleware_id: 42, error_details: [{ field: 'price', message: 'must be >= 0' }], raw_data: { price: -1 } }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), status: 'open', deliveries: 2 });

    const items = await ctx.db.prisma.outboundQueueItem.findMany({ orderBy: { id: 'asc' } });
    expect(items).toHaveLength(2);
    const failure = await ctx.db.prisma.syncFailure.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(items[0]!.payload).toEqual({
      event: 'sync_failure',
      failure_id: res.body.id,
      entity_type: 'product',
      external_id: 'SKU-1',
      source: 'webshop',
      error_message: 'Price must not be negative',
      error_details: [{ field: 'price', message: 'must be >= 0' }],
      failed_at: failure.createdAt.toISOString(),
    });
    expect(items.every((i) => i.status === 'pending' && i.failureId === res.body.id)).toBe(true);
    expect(new Set(items.map((i) => i.messageId)).size).toBe(2);

    const fromErp = await ctx.api.request('POST', '/api/v1/failures', { body: report({ source: 'erp' }) });
    expect(fromErp.body.deliveries).toBe(1);
  });

  it.each([
    ['a missing error_message', { error_message: undefined }, 'error_message'],
    ['neither external_id nor middleware_id', { external_id: undefined }, 'external_id'],
    ['an unknown entity_type', { entity_type: 'invoice' }, 'entity_type'],
    ['an unknown source', { source: 'crm' }, 'source'],
    ['a mistyped middleware_id', { middleware_id: 'x' }, 'middleware_id'],
    ['error_details of the wrong shape', { error_details: [{ field: 'a' }] }, 'error_details[0].message'],
    ['raw_data that is not an object', { raw_data: [1, 2] }, 'raw_data'],
    ['an unknown field', { severity: 'high' }, 'severity'],
  ])('rejects %s with a 400 naming the field, storing nothing', async (_name, overrides, field) => {
    const res = await ctx.api.request('POST', '/api/v1/failures', { body: report(overrides) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await ctx.db.prisma.syncFailure.count()).toBe(0);
  });

  it('rejects raw_data over 1 MB', async () => {
    const res = await ctx.api.request('POST', '/api/v1/failures', { body: report({ raw_data: { blob: 'x'.repeat(1024 * 1024) } }) });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'raw_data' })]);
  });

  it('lists with filters and without raw_data, returns one in full, 404 when unknown', async () => {
    const a = await ctx.api.request('POST', '/api/v1/failures', { body: report({ raw_data: { big: true } }) });
    await ctx.api.request('POST', '/api/v1/failures', { body: report({ entity_type: 'partner', source: 'erp' }) });
    const list = await ctx.api.request('GET', '/api/v1/failures?entity_type=product&status=open&source=webshop');
    expect(list.body.meta.total).toBe(1);
    expect(list.body.payload[0]).toEqual({
      id: a.body.id,
      entity_type: 'product',
      external_id: 'SKU-1',
      middleware_id: null,
      source: 'webshop',
      error_message: 'Price must not be negative',
      error_details: [],
      status: 'open',
      hasRawData: true,
      createdAt: expect.any(String),
      resolvedAt: null,
      resolvedBy: null,
      resolutionNote: null,
    });
    expect((await ctx.api.request('GET', '/api/v1/failures')).body.meta.total).toBe(2);
    expect((await ctx.api.request('GET', '/api/v1/failures?status=closed')).status).toBe(400);
    const unknownType = await ctx.api.request('GET', '/api/v1/failures?entity_type=invoice');
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.error.details.map((d: { field: string }) => d.field)).toContain('entity_type');

    const one = await ctx.api.request('GET', `/api/v1/failures/${a.body.id}`);
    expect(one.body.raw_data).toEqual({ big: true });
    expect((await ctx.api.request('GET', '/api/v1/failures/999999')).status).toBe(404);
  });

  it('resolves by hand with a note; resolving twice is harmless', async () => {
    const a = await ctx.api.request('POST', '/api/v1/failures', { body: report() });
    const first = await ctx.api.request('POST', `/api/v1/failures/${a.body.id}/resolve`, { body: { note: 'fixed in ERP' } });
    // Who resolved it is a token name: an admin sees it, the integration token that resolved it does not (ADR 0044).
    expect(first.body).toMatchObject({ status: 'resolved', resolutionNote: 'fixed in ERP', resolvedBy: null });
    const admin = (await createToken(ctx.db.prisma, `admin-${backend}-${Date.now()}`, 'admin')).token;
    const seenByAdmin = await ctx.api.request('GET', `/api/v1/failures/${a.body.id}`, { token: admin });
    expect(seenByAdmin.body.resolvedBy).toMatch(/^test-/);
    const second = await ctx.api.request('POST', `/api/v1/failures/${a.body.id}/resolve`);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'resolved', resolvedAt: first.body.resolvedAt, resolutionNote: 'fixed in ERP' });
    expect((await ctx.api.request('POST', '/api/v1/failures/999999/resolve')).status).toBe(404);
    expect((await ctx.api.request('POST', `/api/v1/failures/${a.body.id}/resolve`, { body: { notes: 'typo' } })).status).toBe(400);
  });

  it('the detailed ack acknowledges the record and resolves its open failures in one go', async () => {
    await ctx.api.request('POST', '/api/v1/products', { body: { products: [{ external_id: 'ACK-1' }, { external_id: 'OTHER' }] } });
    const products = (await ctx.api.request('GET', '/api/v1/updated-products')).body.payload;
    const ack1 = products.find((p: { externalId: string }) => p.externalId === 'ACK-1');
    const byId = await ctx.api.request('POST', '/api/v1/failures', { body: report({ external_id: undefined, middleware_id: ack1.id }) });
    const byExternal = await ctx.api.request('POST', '/api/v1/failures', { body: report({ external_id: 'ACK-1' }) });
    const unrelated = await ctx.api.request('POST', '/api/v1/failures', { body: report({ external_id: 'OTHER' }) });
    const otherType = await ctx.api.request('POST', '/api/v1/failures', { body: report({ entity_type: 'partner', external_id: 'ACK-1' }) });

    const res = await ctx.api.request('POST', `/api/v1/updates/product/${ack1.id}/ack`, { body: { note: 'processed' } });
    expect(res.body).toEqual({ success: true, acknowledged: 1, resolvedFailures: 2 });
    const status = async (id: number) => (await ctx.api.request('GET', `/api/v1/failures/${id}`)).body;
    expect(await status(byId.body.id)).toMatchObject({ status: 'resolved', resolutionNote: 'processed' });
    expect((await status(byExternal.body.id)).status).toBe('resolved');
    expect((await status(unrelated.body.id)).status).toBe('open');
    expect((await status(otherType.body.id)).status).toBe('open');
    const pending = (await ctx.api.request('GET', '/api/v1/updated-products')).body.payload;
    expect(pending.map((p: { externalId: string }) => p.externalId)).toEqual(['OTHER']);

    expect((await ctx.api.request('POST', '/api/v1/updates/product/999999/ack')).status).toBe(404);
    expect((await ctx.api.request('POST', '/api/v1/updates/invoice/1/ack')).status).toBe(400);
  });

  it('the detailed ack of a purchase order acknowledges it; failures are never about purchase orders, so none resolve', async () => {
    await ctx.api.request('POST', '/api/v1/purchase-orders', {
      body: { purchase_orders: [{ external_id: 'PO-1', supplier_external_id: 'SUP-1', lines: [] }] },
    });
    const [order] = (await ctx.api.request('GET', '/api/v1/purchase-orders/updated')).body.payload;
    const open = await ctx.api.request('POST', '/api/v1/failures', { body: report({ external_id: 'PO-1' }) });

    const res = await ctx.api.request('POST', `/api/v1/updates/purchase_order/${order.id}/ack`, { body: {} });
    expect(res.body).toEqual({ success: true, acknowledged: 1, resolvedFailures: 0 });
    expect((await ctx.api.request('GET', '/api/v1/purchase-orders/updated')).body.payload).toEqual([]);
    expect((await ctx.api.request('GET', `/api/v1/failures/${open.body.id}`)).body.status).toBe('open');
  });

  it('counts open failures per entity type and source for the dashboard, zeros included', async () => {
    await ctx.db.prisma.syncFailure.deleteMany();
    const report = (entity_type: string, source: string) =>
      ctx.api.request('POST', '/api/v1/failures', { body: { entity_type, source, external_id: 'X-1', error_message: 'broken' } });
    await report('product', 'erp');
    await report('product', 'erp');
    await report('partner', 'webshop');
    const resolved = await report('sale_order', 'erp');
    await ctx.api.request('POST', `/api/v1/failures/${resolved.body.id}/resolve`, { body: {} });

    const res = await ctx.api.graphql('{ openFailureCounts { entity_type source open } }');
    expect(res.body.data.openFailureCounts).toEqual([
      { entity_type: 'product', source: 'erp', open: 2 },
      { entity_type: 'product', source: 'webshop', open: 0 },
      { entity_type: 'partner', source: 'erp', open: 0 },
      { entity_type: 'partner', source: 'webshop', open: 1 },
      { entity_type: 'sale_order', source: 'erp', open: 0 },
      { entity_type: 'sale_order', source: 'webshop', open: 0 },
    ]);
  });
});
