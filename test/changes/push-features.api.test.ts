import { backends } from '../support/database';
import { useApiFixture } from '../support/http';

/** Stale-push protection (ADR 0027) and dry runs (ADR 0028) on every inbound POST. */
describe.each(backends)('stale pushes and dry runs on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const post = (path: string, body: unknown, headers?: Record<string, string>) =>
    ctx.api.request('POST', path, { body, ...(headers ? { headers } : {}) });
  const pendingProducts = async () => (await ctx.api.request('GET', '/api/v1/updated-products?limit=500')).body.payload;

  beforeEach(async () => {
    await ctx.db.prisma.product.deleteMany();
    await ctx.db.prisma.stock.deleteMany();
    await ctx.db.prisma.partner.deleteMany();
  });

  describe('source_updated_at', () => {
    it('skips an older push, reports it as STALE naming both times, and applies equal and newer times', async () => {
      await post('/api/v1/products', { external_id: 'S1', price: 10, source_updated_at: '2026-11-22T10:00:00Z' });
      const older = await post('/api/v1/products', {
        products: [{ external_id: 'S1', price: 5, source_updated_at: '2026-11-22T09:59:59.999Z' }],
      });
      expect(older.status).toBe(200);
      expect(older.body).toMatchObject({ success: false, processed: 1, created: 0, updated: 0, skipped: 1 });
      expect(older.body.errors).toEqual([
        {
          index: 0,
          external_id: 'S1',
          field: 'products[0].source_updated_at',
          code: 'STALE',
          message: expect.stringMatching(/2026-11-22T09:59:59\.999Z.*2026-11-22T10:00:00\.000Z/),
        },
      ]);
      expect((await ctx.db.prisma.product.findUnique({ where: { externalId: 'S1' } }))!.data).toEqual({ price: 10 });

      const equal = await post('/api/v1/products', { external_id: 'S1', price: 6, source_updated_at: '2026-11-22T11:00:00+01:00' });
      expect(equal.body).toMatchObject({ success: true, updated: 1, skipped: 0 });
      const stored = await ctx.db.prisma.product.findUnique({ where: { externalId: 'S1' } });
      expect(stored!.data).toEqual({ price: 6 });
      expect(stored!.sourceUpdatedAt!.toISOString()).toBe('2026-11-22T10:00:00.000Z');

      const without = await post('/api/v1/products', { external_id: 'S1', price: 7 });
      expect(without.body).toMatchObject({ success: true, updated: 1, skipped: 0 });
    });

    it('keeps a newer time sent with unchanged data, so that a delayed older push is still refused', async () => {
      await post('/api/v1/products', { external_id: 'S2', price: 1, source_updated_at: '2026-11-22T10:00:00Z' });
      const same = await post('/api/v1/products', { external_id: 'S2', price: 1, source_updated_at: '2026-11-22T12:00:00Z' });
      expect(same.body).toMatchObject({ created: 0, updated: 0, skipped: 0 });
      const delayed = await post('/api/v1/products', { external_id: 'S2', price: 2, source_updated_at: '2026-11-22T11:00:00Z' });
      expect(delayed.body).toMatchObject({ updated: 0, skipped: 1 });
      expect((await pendingProducts()).find((p: { externalId: string }) => p.externalId === 'S2').revision).toBe(1);
    });

    it('skips a stale product with its prices, and the later of two records in one batch only when it is newer', async () => {
      await post('/api/v1/products', {
        external_id: 'S3',
        price: 1,
        source_updated_at: '2026-11-22T10:00:00Z',
        pricelists: [{ pricelist_external_id: 'PL', pricelist_name: 'Retail', price: 1 }],
      });
      const res = await post('/api/v1/products', {
        products: [
          {
            external_id: 'S3',
            price: 2,
            source_updated_at: '2026-11-22T09:00:00Z',
            pricelists: [{ pricelist_external_id: 'PL', pricelist_name: 'Retail', price: 2 }],
          },
          { external_id: 'S4', price: 1, source_updated_at: '2026-11-22T10:00:00Z' },
          { external_id: 'S4', price: 3, source_updated_at: '2026-11-22T08:00:00Z' },
        ],
      });
      expect(res.body).toMatchObject({ processed: 3, created: 1, skipped: 2 });
      expect(res.body.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
        [0, 'STALE'],
        [2, 'STALE'],
      ]);
      expect((await ctx.db.prisma.priceItem.findFirst({ where: { productExternalId: 'S3' } }))!.price).toBe(1);
      expect((await ctx.db.prisma.product.findUnique({ where: { externalId: 'S4' } }))!.data).toEqual({ price: 1 });
    });

    it('refuses a source_updated_at that is no ISO 8601 date-time, for that record only', async () => {
      const res = await post('/api/v1/sale-orders', {
        sale_orders: [
          { external_id: 'O1', direction: 'inbound', source_updated_at: 'yesterday' },
          { external_id: 'O2', direction: 'inbound', source_updated_at: '2026-11-22T10:00:00Z' },
        ],
      });
      expect(res.body).toMatchObject({
        processed: 1,
        created: 1,
        errors: [{ index: 0, field: 'sale_orders[0].source_updated_at', code: 'INVALID' }],
      });
    });

    it('protects stock entries, partners and purchase orders the same way', async () => {
      const stock = { supplier_external_id: 'SUP', product_external_id: 'P', quantity: 5, source_updated_at: '2026-11-22T10:00:00Z' };
      await post('/api/v1/stocks', { stocks: [stock] });
      const staleStock = await post('/api/v1/stocks', { stocks: [{ ...stock, quantity: 1, source_updated_at: '2026-11-22T09:00:00Z' }] });
      expect(staleStock.body).toMatchObject({ processed: 1, updated: 0, skipped: 1, errors: [{ external_id: 'SUP/P', code: 'STALE' }] });
      expect((await ctx.db.prisma.stock.findFirst())!.quantity).toBe(5);
      const newer = await post('/api/v1/stocks', { stocks: [{ ...stock, quantity: 7, source_updated_at: '2026-11-22T11:00:00Z' }] });
      expect(newer.body).toMatchObject({ updated: 1, skipped: 0 });

      await post('/api/v1/partners', { external_id: 'C1', type: 'B', name: 'A', source_updated_at: '2026-11-22T10:00:00Z' });
      const stalePartner = await post('/api/v1/partners', { external_id: 'C1', name: 'B', source_updated_at: '2026-11-21T10:00:00Z' });
      expect(stalePartner.body).toMatchObject({ skipped: 1, errors: [{ field: 'partners[0].source_updated_at', code: 'STALE' }] });

      const order = { external_id: 'PO1', supplier_external_id: 'SUP', lines: [], source_updated_at: '2026-11-22T10:00:00Z' };
      await post('/api/v1/purchase-orders', order);
      const staleOrder = await post('/api/v1/purchase-orders', { ...order, state: 'done', source_updated_at: '2026-11-22T09:00:00Z' });
      expect(staleOrder.body).toMatchObject({ skipped: 1, errors: [{ code: 'STALE' }] });
    });
  });

  describe('dry_run=true', () => {
    it('answers what each record would do, stores nothing and creates no pending change', async () => {
      await post('/api/v1/products', { external_id: 'D1', name: 'Cup', price: 7, source_updated_at: '2026-11-22T10:00:00Z' });
      const before = await pendingProducts();
      const res = await post('/api/v1/products?dry_run=true', {
        products: [
          { external_id: 'D1', name: 'Cup', price: 8 },
          { external_id: 'D2', name: 'New' },
          { external_id: 'D1', price: 9, source_updated_at: '2026-11-22T09:00:00Z' },
          { external_id: 'BAD\u0000', name: 'poison' },
          { external_id: 'D1', price: 8 },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ dryRun: true, success: false, processed: 4, created: 1, updated: 1, skipped: 1, recordsOmitted: 0 });
      expect(res.body.records).toEqual([
        { index: 0, external_id: 'D1', action: 'updated', changedFields: ['price'], previous: { price: 7 } },
        { index: 1, external_id: 'D2', action: 'created', changedFields: ['name'], previous: null },
        { index: 2, external_id: 'D1', action: 'skipped', changedFields: [], previous: null },
        { index: 3, external_id: null, action: 'rejected', changedFields: [], previous: null },
        { index: 4, external_id: 'D1', action: 'unchanged', changedFields: [], previous: {} },
      ]);
      expect(await ctx.db.prisma.product.count()).toBe(1);
      expect((await ctx.db.prisma.product.findUnique({ where: { externalId: 'D1' } }))!.data).toEqual({ name: 'Cup', price: 7 });
      expect(await pendingProducts()).toEqual(before);
    });

    it('rolls back a stock list too and reports the stored values', async () => {
      await post('/api/v1/stocks', { stocks: [{ supplier_external_id: 'S', product_external_id: 'P', quantity: 5, purchase_price: 2 }] });
      const res = await post('/api/v1/stocks?dry_run=true', {
        stocks: [
          { supplier_external_id: 'S', product_external_id: 'P', quantity: 6 },
          { supplier_external_id: 'S', product_external_id: 'Q', quantity: 1 },
          { supplier_external_id: 'S', quantity: 'many' },
        ],
      });
      expect(res.body).toMatchObject({ dryRun: true, created: 1, updated: 1 });
      expect(res.body.records).toEqual([
        { index: 0, external_id: 'S/P', action: 'updated', changedFields: ['quantity'], previous: { quantity: 5 } },
        { index: 1, external_id: 'S/Q', action: 'created', changedFields: ['quantity'], previous: null },
        { index: 2, external_id: null, action: 'rejected', changedFields: [], previous: null },
      ]);
      expect(await ctx.db.prisma.stock.count()).toBe(1);
      expect((await ctx.db.prisma.stock.findFirst())!.quantity).toBe(5);
    });

    it('caps the records and counts the rest', async () => {
      const products = Array.from({ length: 1005 }, (_v, i) => ({ external_id: `CAP-${i}` }));
      const res = await post('/api/v1/products?dry_run=true', { products });
      expect(res.body.records).toHaveLength(1000);
      expect(res.body).toMatchObject({ created: 1005, recordsOmitted: 5 });
      expect(await ctx.db.prisma.product.count()).toBe(0);
    });

    it('neither consumes nor replays an Idempotency-Key', async () => {
      const key = { 'idempotency-key': `dry-run-${backend}` };
      const dry = await post('/api/v1/partners?dry_run=true', { external_id: 'K1', type: 'B' }, key);
      expect(dry.body).toMatchObject({ dryRun: true, created: 1 });
      const real = await post('/api/v1/partners', { external_id: 'K1', type: 'B' }, key);
      expect(real.headers.get('idempotent-replayed')).toBeNull();
      expect(real.body).toMatchObject({ dryRun: false, created: 1 });
      expect(await ctx.db.prisma.partner.count()).toBe(1);
      const order = { external_id: 'PO-K', supplier_external_id: 'SUP', lines: [] };
      const poKey = { 'idempotency-key': `dry-run-po-${backend}` };
      expect((await post('/api/v1/purchase-orders?dry_run=true', order, poKey)).body).toMatchObject({ dryRun: true, created: 1 });
      expect((await post('/api/v1/purchase-orders', order, poKey)).body).toMatchObject({ dryRun: false, created: 1 });
    });

    it('refuses a dry_run that is not true or false', async () => {
      const res = await post('/api/v1/sale-orders?dry_run=yes', { external_id: 'X', direction: 'inbound' });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'dry_run', message: expect.any(String) }]);
    });
  });

  describe('previous on change records', () => {
    const listed = async () => (await ctx.api.request('GET', '/api/v1/updated-products')).body.payload;
    const ack = (items: Array<{ id: number; revision: number }>) => post('/api/v1/updated-products/batch-delete', { items });

    it('is null while new, then holds each changed field as of the last acknowledgement', async () => {
      await post('/api/v1/products', { external_id: 'V1', erp_id: 1, name: 'Cup', price: 7 });
      const [fresh] = await listed();
      expect(fresh.previous).toBeNull();
      await ack([{ id: fresh.id, revision: 1 }]);

      await post('/api/v1/products', { external_id: 'V1', price: 8 });
      await post('/api/v1/products', { external_id: 'V1', price: 9, name: 'Mug', erp_id: 2 });
      const [twice] = await listed();
      expect(twice).toMatchObject({
        revision: 3,
        changedFields: ['erp_id', 'name', 'price'],
        previous: { price: 7, name: 'Cup', erp_id: 1 },
      });

      // Acknowledging revision 2 only: price changed again at 3, so its value as of that ack is 8.
      await ack([{ id: twice.id, revision: 2 }]);
      const [partly] = await listed();
      expect(partly).toMatchObject({ changedFields: ['erp_id', 'name', 'price'], previous: { price: 8, name: 'Cup', erp_id: 1 } });

      await ack([{ id: twice.id, revision: 3 }]);
      expect(await listed()).toEqual([]);
      await post('/api/v1/products', { external_id: 'V1', name: 'Beaker' });
      expect((await listed())[0]).toMatchObject({ changedFields: ['name'], previous: { name: 'Mug' } });
      expect((await ctx.db.prisma.product.findUnique({ where: { externalId: 'V1' } }))!.pendingValues).toEqual({ name: [[4, 'Mug']] });
    });

    it('is the same over GraphQL, here for a sale order', async () => {
      await post('/api/v1/sale-orders', { external_id: 'SO-V', direction: 'inbound', state: 'draft' });
      const orders = (await ctx.api.request('GET', '/api/v1/updated-sale-orders?limit=500')).body.payload;
      const first = orders.find((o: { externalId: string }) => o.externalId === 'SO-V');
      await post('/api/v1/updated-sale-orders/batch-delete', { ids: [first.id] });
      await post('/api/v1/sale-orders', { external_id: 'SO-V', direction: 'inbound', state: 'sale' });
      const res = await ctx.api.graphql('{ updatedSaleOrders(limit: 500) { payload { externalId changedFields previous } } }');
      expect(res.body.data.updatedSaleOrders.payload.filter((o: { externalId: string }) => o.externalId === 'SO-V')).toEqual([
        { externalId: 'SO-V', changedFields: ['state'], previous: { state: 'draft' } },
      ]);
    });
  });
});
