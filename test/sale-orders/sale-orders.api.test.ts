import { backends } from '../support/database';
import { useApiFixture } from '../support/http';
import { pushAnswer } from '../support/push-answer';

describe.each(backends)('sale orders over REST on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const pending = async (query = '') => (await ctx.api.request('GET', `/api/v1/updated-sale-orders${query}`)).body;

  beforeEach(async () => {
    await ctx.db.prisma.saleOrder.deleteMany();
  });

  it('stores single and batch orders with direction, partner and lines, and lists them as change records', async () => {
    const single = await ctx.api.request('POST', '/api/v1/sale-orders', {
      body: {
        external_id: 'SO-1',
        erp_id: 501,
        direction: 'inbound',
        partner_external_id: 'C-1',
        lines: [{ sku: 'A', qty: 2 }],
        note: 'rush',
      },
    });
    expect(single.body).toEqual(pushAnswer({ processed: 1, created: 1 }));
    const batch = await ctx.api.request('POST', '/api/v1/sale-orders', {
      body: { sale_orders: [{ external_id: 'SO-2', direction: 'outbound' }] },
    });
    expect(batch.body).toMatchObject({ processed: 1, created: 1 });

    const list = await pending();
    expect(list.meta.total).toBe(2);
    expect(list.payload[0]).toEqual({
      id: expect.any(Number),
      revision: 1,
      previous: null,
      externalId: 'SO-1',
      erpId: 501,
      direction: 'inbound',
      partnerExternalId: 'C-1',
      isNew: true,
      changedFields: ['direction', 'erp_id', 'lines', 'note', 'partner_external_id'],
      context: 'erp_sync',
      data: { lines: [{ sku: 'A', qty: 2 }], note: 'rush' },
      updatedAt: expect.any(String),
    });
  });

  it('filters the change list by direction and rejects an unknown direction', async () => {
    await ctx.api.request('POST', '/api/v1/sale-orders', {
      body: {
        sale_orders: [
          { external_id: 'IN-1', direction: 'inbound' },
          { external_id: 'OUT-1', direction: 'outbound' },
          { external_id: 'IN-2', direction: 'inbound' },
        ],
      },
    });
    const inbound = await pending('?direction=inbound');
    expect(inbound.payload.map((o: { externalId: string }) => o.externalId)).toEqual(['IN-1', 'IN-2']);
    expect(inbound.meta.total).toBe(2);
    expect((await pending('?direction=outbound')).payload.map((o: { externalId: string }) => o.externalId)).toEqual(['OUT-1']);

    const bad = await ctx.api.request('GET', '/api/v1/updated-sale-orders?direction=sideways');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ field: 'direction' })]);
  });

  it('reports bad records by index and field while storing the good ones', async () => {
    const res = await ctx.api.request('POST', '/api/v1/sale-orders', {
      body: {
        sale_orders: [
          { external_id: 'OK-1', direction: 'inbound' },
          { external_id: 'NO-DIR' },
          { external_id: 'BAD-DIR', direction: 'sideways' },
          { external_id: 'BAD-LINES', direction: 'inbound', lines: 'many' },
        ],
      },
    });
    expect(res.body).toMatchObject({ success: false, processed: 1, created: 1 });
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'sale_orders[1].direction',
      'sale_orders[2].direction',
      'sale_orders[3].lines',
    ]);
    expect(await ctx.db.prisma.saleOrder.count()).toBe(1);
  });

  it('tracks changes to lines and acknowledges single and batch', async () => {
    await ctx.api.request('POST', '/api/v1/sale-orders', {
      body: {
        sale_orders: [
          { external_id: 'A', direction: 'inbound', lines: [{ sku: 'x', qty: 1 }] },
          { external_id: 'B', direction: 'inbound' },
        ],
      },
    });
    const [a, b] = (await pending()).payload;
    expect((await ctx.api.request('DELETE', `/api/v1/updated-sale-orders/${a.id}`)).body).toEqual({ success: true, acknowledged: 1 });
    expect((await ctx.api.request('POST', '/api/v1/updated-sale-orders/batch-delete', { body: { ids: [b.id, 424242] } })).body).toEqual({
      success: true,
      acknowledged: 1,
      notFound: [424242],
      notListed: [],
    });
    expect((await pending()).meta.total).toBe(0);

    const same = await ctx.api.request('POST', '/api/v1/sale-orders', {
      body: { external_id: 'A', direction: 'inbound', lines: [{ qty: 1, sku: 'x' }] },
    });
    expect(same.body).toMatchObject({ created: 0, updated: 0 });
    await ctx.api.request('POST', '/api/v1/sale-orders', {
      body: { external_id: 'A', direction: 'inbound', lines: [{ sku: 'x', qty: 3 }] },
    });
    expect((await pending()).payload).toEqual([expect.objectContaining({ externalId: 'A', isNew: false, changedFields: ['lines'] })]);

    expect((await ctx.api.request('DELETE', '/api/v1/updated-sale-orders/999999')).status).toBe(404);
  });

  it('serves the same operations in GraphQL', async () => {
    await ctx.api.graphql('mutation { syncSaleOrders(sale_orders: [{external_id: "G-1", direction: "outbound"}]) { created } }');
    const res = await ctx.api.graphql(
      '{ updatedSaleOrders(direction: outbound) { payload { externalId direction } meta { total } } pendingChanges { saleOrders } saleOrders(filter: {direction: outbound}) { meta { total } } }',
    );
    expect(res.body.data).toEqual({
      updatedSaleOrders: { payload: [{ externalId: 'G-1', direction: 'outbound' }], meta: { total: 1 } },
      pendingChanges: { saleOrders: 1 },
      saleOrders: { meta: { total: 1 } },
    });
  });
});
