import { createToken } from '../../src/auth/token.service';
import { createChannel } from '../../src/channels/channel.service';
import { backends } from '../support/database';
import { useApiFixture, type JsonResponse } from '../support/http';

/**
 * Lookups per channel (issue 31, ADR 0045): every read of a tracked record by a token bound to a
 * channel shows that channel's ledger (pending, isNew, changedFields, previous), over GraphQL and
 * REST, while a token on default reads default's. Channel b starts `now` over an empty store.
 */
describe.each(backends)('lookups on a channel on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const tokens = { onDefault: '', onB: '', viewerOnB: '', admin: '' };
  let poId = 0;
  let childId = 0;

  const get = (path: string, token: string) => ctx.api.request('GET', path, { token });
  const push = async (path: string, body: unknown) => expect((await ctx.api.request('POST', path, { body })).status).toBe(200);
  const gql = async (token: string, query: string, variables: Record<string, unknown> = {}) => {
    const res: JsonResponse = await ctx.api.request('POST', '/graphql', { token, body: { query, variables } });
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };

  const LISTS = [
    '/api/v1/updated-products',
    '/api/v1/pricelists/updated',
    '/api/v1/updated-partners',
    '/api/v1/updated-sale-orders',
    '/api/v1/purchase-orders/updated',
    '/api/v1/stocks/changed',
  ];
  /** Lists every change list with `token` and acknowledges what it was shown. */
  async function acknowledgeAll(token: string): Promise<void> {
    for (const path of LISTS) {
      const ids = (await get(`${path}?limit=500`, token)).body.payload.map((r: { id: number }) => r.id);
      if (ids.length > 0) expect((await ctx.api.request('POST', `${path}/batch-delete`, { token, body: { ids } })).status).toBe(200);
    }
  }

  const order = (quantity: number) => ({
    external_id: 'PO-1',
    supplier_external_id: 'SUP-1',
    lines: [{ product_external_id: 'P1', quantity, price: 3 }],
  });
  const saleOrder = (quantity: number) => ({
    external_id: 'SO-1',
    direction: 'inbound',
    partner_external_id: 'ROOT',
    lines: [{ product_external_id: 'P1', quantity }],
  });
  const product = (price: number, listPrice: number) => ({
    external_id: 'P1',
    name: 'Chair',
    price,
    pricelists: [{ pricelist_external_id: 'RETAIL', pricelist_name: 'Retail', price: listPrice }],
  });

  beforeAll(async () => {
    const { prisma } = ctx.db;
    await createChannel(prisma, 'b', 'now');
    tokens.onDefault = (await createToken(prisma, 'shop-default', 'webshop')).token;
    tokens.onB = (await createToken(prisma, 'shop-b', 'webshop', 'b')).token;
    tokens.viewerOnB = (await createToken(prisma, 'viewer-b', 'viewer', 'b')).token;
    tokens.admin = (await createToken(prisma, 'admin-lookups', 'admin')).token;
    await push('/api/v1/products', { products: [product(10, 9)] });
    await push('/api/v1/partners', {
      partners: [
        { external_id: 'ROOT', type: 'B', name: 'Example Ltd' },
        { external_id: 'CHILD', type: 'D', parent_external_id: 'ROOT', name: 'Gate 2' },
      ],
    });
    await push('/api/v1/sale-orders', { sale_orders: [saleOrder(1)] });
    await push('/api/v1/purchase-orders', { purchase_orders: [order(100)] });
    await push('/api/v1/stocks', { stocks: [{ supplier_external_id: 'SUP-1', product_external_id: 'P1', quantity: 5 }] });
    poId = (await prisma.purchaseOrder.findUniqueOrThrow({ where: { externalId: 'PO-1' } })).id;
    childId = (await prisma.partner.findUniqueOrThrow({ where: { externalId: 'CHILD' } })).id;
    // Only default acknowledges: every record is settled there and new on b.
    await acknowledgeAll(tokens.onDefault);
  });

  const PRODUCTS = `{
    product(externalId: "P1") { pending isNew changedFields previous acknowledgedAt priceItems { isNew } stock { isQuantityChanged } }
    pending: products(filter: { pending: true }) { payload { externalId } meta { total } }
    settled: products(filter: { pending: false, externalId: "P1" }) { meta { total } }
    pendingChanges { products partners saleOrders purchaseOrders priceItems stocks }
  }`;
  const PARTNERS = `query($id: Int!) {
    partner(externalId: "CHILD") { pending isNew changedFields previous parent { pending isNew } }
    root: partner(externalId: "ROOT") { children { externalId pending isNew changedFields } }
    pending: partners(filter: { pending: true, type: D }) { payload { externalId } meta { total } }
    partnerHierarchy(id: $id) { root }
  }`;
  const ORDERS = `query($id: Int!) {
    saleOrder(externalId: "SO-1") { pending isNew changedFields previous }
    saleOrders(filter: { pending: true, direction: inbound }) { meta { total } }
    purchaseOrder(id: $id) { pending isNew changedFields previous acknowledgedAt }
    purchaseOrders(filter: { pending: true, supplierExternalId: "SUP-1" }) { meta { total } }
  }`;
  const STOCKS = `{
    stocksBySupplier(supplierId: "SUP-1") { payload { isQuantityChanged } }
    stocksByProduct(productId: "P1") { payload { isQuantityChanged } }
    stockLookup(supplier_id: "SUP-1", product_id: "P1") { isQuantityChanged }
    pricelistItems(pricelistId: "RETAIL") { payload { isNew } }
  }`;

  it('shows a bound token its channel over GraphQL: new and pending on b, settled on default', async () => {
    const onB = await gql(tokens.onB, PRODUCTS);
    expect(onB.product).toEqual({
      pending: true,
      isNew: true,
      changedFields: ['name', 'price'],
      previous: null,
      acknowledgedAt: null,
      priceItems: [{ isNew: true }],
      stock: [{ isQuantityChanged: true }],
    });
    expect(onB.pending).toEqual({ payload: [{ externalId: 'P1' }], meta: { total: 1 } });
    expect(onB.settled.meta.total).toBe(0);
    expect(onB.pendingChanges).toEqual({ products: 1, partners: 2, saleOrders: 1, purchaseOrders: 1, priceItems: 1, stocks: 1 });
    const onDefault = await gql(tokens.onDefault, PRODUCTS);
    expect(onDefault.product).toMatchObject({ pending: false, isNew: false, changedFields: [], previous: {} });
    expect(onDefault.product.acknowledgedAt).toEqual(expect.any(String));
    expect(onDefault.product.priceItems).toEqual([{ isNew: false }]);
    expect(onDefault.product.stock).toEqual([{ isQuantityChanged: false }]);
    expect(onDefault.pending.meta.total).toBe(0);
    expect(onDefault.settled.meta.total).toBe(1);
    expect(onDefault.pendingChanges).toEqual({ products: 0, partners: 0, saleOrders: 0, purchaseOrders: 0, priceItems: 0, stocks: 0 });
    // A viewer bound to b reads b too.
    expect((await gql(tokens.viewerOnB, PRODUCTS)).product).toEqual(onB.product);

    const partnersOnB = await gql(tokens.onB, PARTNERS, { id: childId });
    expect(partnersOnB.partner).toEqual({
      pending: true,
      isNew: true,
      changedFields: ['name', 'parent_external_id', 'type'],
      previous: null,
      parent: { pending: true, isNew: true },
    });
    expect(partnersOnB.root.children).toEqual([
      { externalId: 'CHILD', pending: true, isNew: true, changedFields: ['name', 'parent_external_id', 'type'] },
    ]);
    expect(partnersOnB.pending).toEqual({ payload: [{ externalId: 'CHILD' }], meta: { total: 1 } });
    expect(partnersOnB.partnerHierarchy.root).toMatchObject({
      isNew: true,
      children: [{ isNew: true, changedFields: ['name', 'parent_external_id', 'type'] }],
    });
    const partnersOnDefault = await gql(tokens.onDefault, PARTNERS, { id: childId });
    expect(partnersOnDefault.partner).toMatchObject({ pending: false, isNew: false, changedFields: [], parent: { pending: false } });
    expect(partnersOnDefault.pending.meta.total).toBe(0);
    expect(partnersOnDefault.partnerHierarchy.root).toMatchObject({
      isNew: false,
      changedFields: [],
      children: [{ isNew: false, changedFields: [] }],
    });

    const ordersOnB = await gql(tokens.onB, ORDERS, { id: poId });
    expect(ordersOnB.saleOrder).toMatchObject({ pending: true, isNew: true, previous: null });
    expect(ordersOnB.purchaseOrder).toMatchObject({ pending: true, isNew: true, previous: null, acknowledgedAt: null });
    expect(ordersOnB.saleOrders.meta.total).toBe(1);
    expect(ordersOnB.purchaseOrders.meta.total).toBe(1);
    const ordersOnDefault = await gql(tokens.onDefault, ORDERS, { id: poId });
    expect(ordersOnDefault.saleOrder).toMatchObject({ pending: false, isNew: false, changedFields: [] });
    expect(ordersOnDefault.purchaseOrder).toMatchObject({ pending: false, isNew: false, changedFields: [] });
    expect(ordersOnDefault.saleOrders.meta.total).toBe(0);

    expect(await gql(tokens.onB, STOCKS)).toEqual({
      stocksBySupplier: { payload: [{ isQuantityChanged: true }] },
      stocksByProduct: { payload: [{ isQuantityChanged: true }] },
      stockLookup: { isQuantityChanged: true },
      pricelistItems: { payload: [{ isNew: true }] },
    });
    expect(await gql(tokens.onDefault, STOCKS)).toEqual({
      stocksBySupplier: { payload: [{ isQuantityChanged: false }] },
      stocksByProduct: { payload: [{ isQuantityChanged: false }] },
      stockLookup: { isQuantityChanged: false },
      pricelistItems: { payload: [{ isNew: false }] },
    });
  });

  it('shows a bound token its channel over REST, and its own reconciliation summary', async () => {
    const onB = await get(`/api/v1/purchase-orders/${poId}`, tokens.onB);
    expect(onB.body).toMatchObject({ pending: true, isNew: true, previous: null, acknowledgedAt: null });
    expect((await get(`/api/v1/purchase-orders/${poId}`, tokens.onDefault)).body).toMatchObject({ pending: false, isNew: false });
    expect((await get(`/api/v1/updated-partners/${childId}/hierarchy`, tokens.onB)).body.root).toMatchObject({ isNew: true });
    expect((await get(`/api/v1/updated-partners/${childId}/hierarchy`, tokens.onDefault)).body.root).toMatchObject({ isNew: false });
    for (const path of ['/api/v1/stocks/by-supplier/SUP-1', '/api/v1/stocks/by-product/P1']) {
      expect((await get(path, tokens.onB)).body.payload).toMatchObject([{ isQuantityChanged: true }]);
      expect((await get(path, tokens.onDefault)).body.payload).toMatchObject([{ isQuantityChanged: false }]);
    }
    expect((await get('/api/v1/stocks/lookup?supplier_id=SUP-1&product_id=P1', tokens.onB)).body.isQuantityChanged).toBe(true);
    expect((await get('/api/v1/pricelists/RETAIL/items', tokens.onB)).body.payload).toMatchObject([{ isNew: true }]);
    expect((await get('/api/v1/pricelists/RETAIL/items', tokens.onDefault)).body.payload).toMatchObject([{ isNew: false }]);

    // The age ticks between two reads; oldestPendingAt says the same without it.
    const productOf = (res: JsonResponse) => {
      const { oldestPendingAgeSeconds, ...summary } = res.body.entities.find((e: { entityType: string }) => e.entityType === 'product');
      expect(oldestPendingAgeSeconds === null || oldestPendingAgeSeconds >= 0).toBe(true);
      return summary;
    };
    const summaryOnB = productOf(await get('/api/v1/reconciliation', tokens.onB));
    expect(summaryOnB).toMatchObject({ records: 1, pending: 1, neverAcknowledged: 1, lastAcknowledgedAt: null });
    expect(summaryOnB.oldestPendingAt).toEqual(expect.any(String));
    const summaryOnDefault = productOf(await get('/api/v1/reconciliation', tokens.onDefault));
    expect(summaryOnDefault).toMatchObject({ records: 1, pending: 0, neverAcknowledged: 0, oldestPendingAt: null });
    expect(summaryOnDefault.lastAcknowledgedAt).toEqual(expect.any(String));
    // An admin names the channel; a bound token may name its own only.
    expect(productOf(await get('/api/v1/reconciliation?channel=b', tokens.admin))).toEqual(summaryOnB);
    expect(productOf(await get('/api/v1/reconciliation?channel=b', tokens.onB))).toEqual(summaryOnB);
    const refused = await get('/api/v1/reconciliation?channel=default', tokens.onB);
    expect(refused.status).toBe(403);
    expect((await get('/api/v1/reconciliation?channel=no-such', tokens.admin)).status).toBe(404);
  });

  describe('after a change that only b acknowledges', () => {
    beforeAll(async () => {
      await push('/api/v1/products', { products: [product(12, 11)] });
      await push('/api/v1/partners', { partners: [{ external_id: 'CHILD', name: 'Gate 3' }] });
      await push('/api/v1/sale-orders', { sale_orders: [saleOrder(2)] });
      await push('/api/v1/purchase-orders', { purchase_orders: [order(80)] });
      await push('/api/v1/stocks', { stocks: [{ supplier_external_id: 'SUP-1', product_external_id: 'P1', quantity: 7 }] });
      await acknowledgeAll(tokens.onB);
    });

    it('shows b settled and default pending with the changed fields since its own acknowledgement', async () => {
      const onB = await gql(tokens.onB, PRODUCTS);
      expect(onB.product).toMatchObject({ pending: false, isNew: false, changedFields: [], previous: {}, acknowledgedAt: null });
      expect(onB.pending.meta.total).toBe(0);
      expect(onB.pendingChanges).toEqual({ products: 0, partners: 0, saleOrders: 0, purchaseOrders: 0, priceItems: 0, stocks: 0 });
      const onDefault = await gql(tokens.onDefault, PRODUCTS);
      expect(onDefault.product).toMatchObject({ pending: true, isNew: false, changedFields: ['price'], previous: { price: 10 } });
      expect(onDefault.pendingChanges).toEqual({ products: 1, partners: 1, saleOrders: 1, purchaseOrders: 1, priceItems: 1, stocks: 1 });

      const partnersOnB = await gql(tokens.onB, PARTNERS, { id: childId });
      expect(partnersOnB.partner).toMatchObject({ pending: false, isNew: false, changedFields: [], previous: {} });
      expect(partnersOnB.partnerHierarchy.root.children[0]).toMatchObject({ isNew: false, changedFields: [] });
      const partnersOnDefault = await gql(tokens.onDefault, PARTNERS, { id: childId });
      expect(partnersOnDefault.partner).toMatchObject({ pending: true, changedFields: ['name'], previous: { name: 'Gate 2' } });
      expect(partnersOnDefault.pending).toEqual({ payload: [{ externalId: 'CHILD' }], meta: { total: 1 } });
      expect(partnersOnDefault.partnerHierarchy.root.children[0]).toMatchObject({ changedFields: ['name'] });

      const ordersOnB = await gql(tokens.onB, ORDERS, { id: poId });
      expect(ordersOnB.purchaseOrder).toMatchObject({ pending: false, isNew: false, changedFields: [] });
      expect(ordersOnB.purchaseOrders.meta.total).toBe(0);
      const ordersOnDefault = await gql(tokens.onDefault, ORDERS, { id: poId });
      expect(ordersOnDefault.saleOrder).toMatchObject({ pending: true, changedFields: ['lines'] });
      expect(ordersOnDefault.purchaseOrder).toMatchObject({
        pending: true,
        changedFields: ['lines'],
        previous: { lines: [{ product_external_id: 'P1', quantity: 100, price: 3 }] },
      });

      const stocksOnB = await gql(tokens.onB, STOCKS);
      expect(stocksOnB.stockLookup.isQuantityChanged).toBe(false);
      expect((await gql(tokens.onDefault, STOCKS)).stockLookup.isQuantityChanged).toBe(true);
    });

    it('answers the REST lookups and the summary per channel', async () => {
      expect((await get(`/api/v1/purchase-orders/${poId}`, tokens.onB)).body).toMatchObject({ pending: false, changedFields: [] });
      expect((await get(`/api/v1/purchase-orders/${poId}`, tokens.onDefault)).body).toMatchObject({
        pending: true,
        changedFields: ['lines'],
      });
      expect((await get('/api/v1/stocks/lookup?supplier_id=SUP-1&product_id=P1', tokens.onB)).body.isQuantityChanged).toBe(false);
      // The age ticks between two reads; oldestPendingAt says the same without it.
      const productOf = (res: JsonResponse) => {
        const { oldestPendingAgeSeconds, ...summary } = res.body.entities.find((e: { entityType: string }) => e.entityType === 'product');
        expect(oldestPendingAgeSeconds === null || oldestPendingAgeSeconds >= 0).toBe(true);
        return summary;
      };
      expect(productOf(await get('/api/v1/reconciliation', tokens.onB))).toMatchObject({
        pending: 0,
        neverAcknowledged: 0,
        oldestPendingAt: null,
      });
      expect(productOf(await get('/api/v1/reconciliation', tokens.onDefault))).toMatchObject({ pending: 1, neverAcknowledged: 0 });
      // The change lists themselves stay per channel.
      expect((await get('/api/v1/updated-products', tokens.onB)).body.meta.total).toBe(0);
      expect((await get('/api/v1/updated-products', tokens.onDefault)).body.payload).toMatchObject([{ changedFields: ['price'] }]);
    });
  });
});
