import { backends } from '../support/database';
import { useApiFixture } from '../support/http';
import { pushAnswer } from '../support/push-answer';

const order = (externalId: string, lines: Array<[string, number, number]>, extra: Record<string, unknown> = {}) => ({
  external_id: externalId,
  supplier_external_id: 'SUP-1',
  lines: lines.map(([product_external_id, quantity, price]) => ({ product_external_id, quantity, price })),
  ...extra,
});

describe.each(backends)('purchase orders over REST on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const updated = async () => (await ctx.api.request('GET', '/api/v1/purchase-orders/updated')).body;
  const ackAll = async () => {
    const ids = (await updated()).payload.map((o: { id: number }) => o.id);
    if (ids.length) await ctx.api.request('POST', '/api/v1/purchase-orders/updated/batch-delete', { body: { ids } });
  };

  beforeEach(async () => {
    await ctx.db.prisma.purchaseOrder.deleteMany();
    await ctx.db.prisma.priceItem.deleteMany();
    await ctx.db.prisma.product.deleteMany();
  });

  it('syncs orders directly and returns one with its lines', async () => {
    const res = await ctx.api.request('POST', '/api/v1/purchase-orders', {
      body: order(
        'PO-1',
        [
          ['A', 10, 2.5],
          ['B', 1, 100],
        ],
        { state: 'draft', order_date: '2026-11-20', erp_id: 77 },
      ),
    });
    expect(res.body).toEqual(pushAnswer({ processed: 1, created: 1 }));
    const [record] = (await updated()).payload;
    expect(record).toEqual({
      id: expect.any(Number),
      revision: 1,
      previous: null,
      externalId: 'PO-1',
      erpId: 77,
      supplierExternalId: 'SUP-1',
      isNew: true,
      changedFields: ['erp_id', 'lines', 'order_date', 'state', 'supplier_external_id'],
      context: 'erp_sync',
      data: {
        state: 'draft',
        order_date: '2026-11-20',
        lines: [
          { product_external_id: 'A', quantity: 10, price: 2.5 },
          { product_external_id: 'B', quantity: 1, price: 100 },
        ],
      },
      updatedAt: expect.any(String),
    });
    const detail = await ctx.api.request('GET', `/api/v1/purchase-orders/${record.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: record.id,
      externalId: 'PO-1',
      state: 'draft',
      orderDate: '2026-11-20',
      lines: [
        { position: 0, productExternalId: 'A', quantity: 10, price: 2.5 },
        { position: 1, productExternalId: 'B', quantity: 1, price: 100 },
      ],
    });
    expect((await ctx.api.request('GET', '/api/v1/purchase-orders/999999')).status).toBe(404);
    expect((await ctx.api.request('GET', '/api/v1/purchase-orders/abc')).status).toBe(400);
  });

  it('extracts purchase orders carried by products through the same service', async () => {
    const res = await ctx.api.request('POST', '/api/v1/products', {
      body: { products: [{ external_id: 'A', name: 'Widget', purchase_orders: [order('PO-X', [['A', 5, 1]])] }] },
    });
    expect(res.body).toMatchObject({ success: true, created: 1 });
    const list = await updated();
    expect(list.payload).toEqual([expect.objectContaining({ externalId: 'PO-X', supplierExternalId: 'SUP-1' })]);
    const product = (await ctx.api.request('GET', '/api/v1/updated-products')).body.payload[0];
    expect(product.data).toEqual({ name: 'Widget' });

    // The same order pushed directly afterwards is the same record: unchanged.
    const again = await ctx.api.request('POST', '/api/v1/purchase-orders', { body: { purchase_orders: [order('PO-X', [['A', 5, 1]])] } });
    expect(again.body).toMatchObject({ created: 0, updated: 0 });
  });

  it('reports any line change as "lines" and rewrites the line records only then', async () => {
    await ctx.api.request('POST', '/api/v1/purchase-orders', {
      body: order('PO-2', [
        ['A', 1, 1],
        ['B', 2, 2],
      ]),
    });
    await ackAll();
    const before = await ctx.db.prisma.purchaseOrderLine.findMany({ orderBy: { position: 'asc' } });

    await ctx.api.request('POST', '/api/v1/purchase-orders', {
      body: order(
        'PO-2',
        [
          ['A', 1, 1],
          ['B', 2, 2],
        ],
        { state: 'sent' },
      ),
    });
    expect((await updated()).payload).toEqual([expect.objectContaining({ changedFields: ['state'] })]);
    expect(await ctx.db.prisma.purchaseOrderLine.findMany({ orderBy: { position: 'asc' } })).toEqual(before);
    await ackAll();

    await ctx.api.request('POST', '/api/v1/purchase-orders', {
      body: order(
        'PO-2',
        [
          ['A', 1, 1],
          ['B', 3, 2],
          ['C', 1, 9],
        ],
        { state: 'sent' },
      ),
    });
    expect((await updated()).payload).toEqual([expect.objectContaining({ isNew: false, changedFields: ['lines'] })]);
    const after = await ctx.db.prisma.purchaseOrderLine.findMany({ orderBy: { position: 'asc' } });
    expect(after.map((l) => [l.productExternalId, l.quantity])).toEqual([
      ['A', 1],
      ['B', 3],
      ['C', 1],
    ]);
  });

  it('keeps a change after the listing pending through the ack', async () => {
    await ctx.api.request('POST', '/api/v1/purchase-orders', { body: order('PO-3', [['A', 1, 1]]) });
    const [listed] = (await updated()).payload;
    await ctx.api.request('POST', '/api/v1/purchase-orders', { body: order('PO-3', [['A', 2, 1]]) });
    const ack = await ctx.api.request('POST', '/api/v1/purchase-orders/updated/batch-delete', { body: { ids: [listed.id] } });
    expect(ack.body).toEqual({ success: true, acknowledged: 1, notFound: [], notListed: [] });
    expect((await updated()).payload).toEqual([expect.objectContaining({ id: listed.id, changedFields: ['lines'] })]);
  });

  it('reports bad orders, in either path, by field', async () => {
    const direct = await ctx.api.request('POST', '/api/v1/purchase-orders', {
      body: {
        purchase_orders: [
          order('OK', [['A', 1, 1]]),
          { external_id: 'NO-SUP', lines: [] },
          order('BAD-LINE', [['A', 1, -1]]),
          order('BAD-DATE', [], { order_date: 'last tuesday' }),
          { external_id: 'NO-LINES', supplier_external_id: 'S' },
        ],
      },
    });
    expect(direct.body.processed).toBe(1);
    expect(direct.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'purchase_orders[1].supplier_external_id',
      'purchase_orders[2].lines[0].price',
      'purchase_orders[3].order_date',
      'purchase_orders[4].lines',
    ]);
    const viaProduct = await ctx.api.request('POST', '/api/v1/products', {
      body: { products: [{ external_id: 'P', purchase_orders: [order('PO-P', [['P', 'x' as unknown as number, 1]])] }] },
    });
    expect(viaProduct.body.errors).toEqual([
      expect.objectContaining({ index: 0, external_id: 'P', field: 'products[0].purchase_orders[0].lines[0].quantity' }),
    ]);
    expect(await ctx.db.prisma.product.count()).toBe(0);
  });

  it('serves orders with lines in GraphQL', async () => {
    await ctx.api.request('POST', '/api/v1/purchase-orders', { body: order('PO-G', [['A', 1, 1]]) });
    const res = await ctx.api.graphql(
      '{ purchaseOrders(filter: {supplierExternalId: "SUP-1"}) { payload { externalId lines { productExternalId } } } pendingChanges { purchaseOrders } }',
    );
    expect(res.body.data).toEqual({
      purchaseOrders: { payload: [{ externalId: 'PO-G', lines: [{ productExternalId: 'A' }] }] },
      pendingChanges: { purchaseOrders: 1 },
    });
  });
});
