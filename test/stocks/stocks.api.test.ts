import { backends } from '../support/database';
import { useApiFixture } from '../support/http';
import { pushAnswer } from '../support/push-answer';

describe.each(backends)('stocks over REST on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const push = (stocks: unknown[]) => ctx.api.request('POST', '/api/v1/stocks', { body: { stocks } });
  const changed = async (query = '') => (await ctx.api.request('GET', `/api/v1/stocks/changed${query}`)).body;
  const ackAll = async () => {
    for (;;) {
      const ids = (await changed('?limit=500')).payload.map((s: { id: number }) => s.id);
      if (ids.length === 0) return;
      for (let i = 0; i < ids.length; i += 1000) {
        await ctx.api.request('POST', '/api/v1/stocks/changed/batch-delete', { body: { ids: ids.slice(i, i + 1000) } });
      }
    }
  };
  const entry = (supplier: string, product: string, quantity: number, extra: Record<string, unknown> = {}) => ({
    supplier_external_id: supplier,
    product_external_id: product,
    quantity,
    ...extra,
  });

  beforeEach(async () => {
    await ctx.db.prisma.stock.deleteMany();
  });

  it('creates entries flagged as quantity-changed, with the fields of the delta query', async () => {
    const res = await push([entry('S1', 'P1', 10, { purchase_price: 2.5, suggested_sale_price: 4 }), entry('S2', 'P1', 0)]);
    expect(res.body).toEqual(pushAnswer({ processed: 2, created: 2 }));
    const list = await changed();
    expect(list.meta).toEqual({ total: 2, limit: 50, offset: 0 });
    expect(list.payload[0]).toEqual({
      id: expect.any(Number),
      revision: 1,
      supplierExternalId: 'S1',
      productExternalId: 'P1',
      quantity: 10,
      previousQuantity: null,
      purchasePrice: 2.5,
      suggestedSalePrice: 4,
      isQuantityChanged: true,
      updatedAt: expect.any(String),
    });
  });

  it('flags a quantity change but not a price-only change, and leaves identical entries alone', async () => {
    await push([entry('S1', 'P1', 10, { purchase_price: 2 }), entry('S1', 'P2', 5)]);
    await ackAll();

    const prices = await push([entry('S1', 'P1', 10, { purchase_price: 3 }), entry('S1', 'P2', 5)]);
    expect(prices.body).toMatchObject({ processed: 2, created: 0, updated: 1 });
    expect((await changed()).meta.total).toBe(0);

    const qty = await push([entry('S1', 'P1', 7)]);
    expect(qty.body).toMatchObject({ created: 0, updated: 1 });
    expect((await changed()).payload).toEqual([
      expect.objectContaining({ productExternalId: 'P1', quantity: 7, previousQuantity: 10, purchasePrice: 3, isQuantityChanged: true }),
    ]);

    await push([entry('S1', 'P1', 7, { purchase_price: null })]);
    const lookup = await ctx.api.request('GET', '/api/v1/stocks/lookup?supplier_id=S1&product_id=P1');
    expect(lookup.body).toMatchObject({ quantity: 7, purchasePrice: null });
  });

  it('keeps each price an entry leaves out, when one list mixes entries with and without it', async () => {
    await push([entry('S9', 'P1', 1, { purchase_price: 5, suggested_sale_price: 9 }), entry('S9', 'P2', 1, { purchase_price: 6 })]);
    const mixed = await push([
      entry('S9', 'P1', 2, { suggested_sale_price: 8 }),
      entry('S9', 'P2', 1, { purchase_price: 7 }),
      entry('S9', 'P3', 1),
    ]);
    expect(mixed.body).toEqual(pushAnswer({ processed: 3, created: 1, updated: 2 }));
    const lookup = async (product: string) =>
      (await ctx.api.request('GET', `/api/v1/stocks/lookup?supplier_id=S9&product_id=${product}`)).body;
    expect(await lookup('P1')).toMatchObject({ quantity: 2, purchasePrice: 5, suggestedSalePrice: 8 });
    expect(await lookup('P2')).toMatchObject({ quantity: 1, purchasePrice: 7, suggestedSalePrice: null });
    expect(await lookup('P3')).toMatchObject({ quantity: 1, purchasePrice: null, suggestedSalePrice: null });
  });

  it('keeps a quantity change made after the listing flagged through the ack', async () => {
    await push([entry('S1', 'P1', 10)]);
    const [listed] = (await changed()).payload;
    await push([entry('S1', 'P1', 8)]);
    const ack = await ctx.api.request('POST', '/api/v1/stocks/changed/batch-delete', { body: { ids: [listed.id, 777777] } });
    expect(ack.body).toEqual({ success: true, acknowledged: 1, notFound: [777777], notListed: [] });
    expect((await changed()).payload).toEqual([expect.objectContaining({ id: listed.id, quantity: 8, previousQuantity: 10 })]);
    await ackAll();
    expect((await changed()).meta.total).toBe(0);
  });

  // A thousand: the push's batches at volume (10,000 entries a request) are the benchmark's
  // (bench/scenarios/stock-upsert.ts).
  it('upserts a thousand entries in one request, half of them changed', async () => {
    const initial = Array.from({ length: 1_000 }, (_, i) => entry(`S${i % 10}`, `P${i}`, i, { purchase_price: 1 }));
    expect((await push(initial)).body).toMatchObject({ success: true, processed: 1_000, created: 1_000 });
    await ackAll();
    const next = initial.map((e, i) => (i % 2 === 0 ? { ...e, quantity: e.quantity + 1 } : e));
    expect((await push(next)).body).toMatchObject({ success: true, processed: 1_000, created: 0, updated: 500 });
    expect((await changed('?limit=1')).meta.total).toBe(500);
    expect(await ctx.db.prisma.stock.count()).toBe(1_000);
  });

  it('rejects more than 10,000 entries with 413 and stores none', async () => {
    const res = await push(Array.from({ length: 10_001 }, (_, i) => entry('S', `P${i}`, 1)));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await ctx.db.prisma.stock.count()).toBe(0);
  });

  it('reports bad entries by index and field and stores the good ones; later duplicates win', async () => {
    const res = await push([
      entry('S1', 'P1', 1),
      { supplier_external_id: 'S1', quantity: 2 },
      entry('S1', 'P3', Number.NaN as unknown as number),
      entry('S1', 'P4', 'many' as unknown as number),
      entry('S1', 'P5', 1, { purchase_price: -1 }),
      entry('S1', 'P1', 9),
    ]);
    // Two valid entries for one key: one entry created, the later one's quantity wins.
    expect(res.body).toMatchObject({ success: false, processed: 2, created: 1, updated: 0 });
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'stocks[1].product_external_id',
      'stocks[2].quantity',
      'stocks[3].quantity',
      'stocks[4].purchase_price',
    ]);
    expect((await ctx.api.request('GET', '/api/v1/stocks/lookup?supplier_id=S1&product_id=P1')).body.quantity).toBe(9);
  });

  it('lists by supplier and by product, looks one up, and answers 404 and 400 where due', async () => {
    await push([entry('S1', 'P1', 1), entry('S1', 'P2', 2), entry('S2', 'P1', 3)]);
    const bySupplier = await ctx.api.request('GET', '/api/v1/stocks/by-supplier/S1');
    expect(bySupplier.body.payload.map((s: { productExternalId: string }) => s.productExternalId)).toEqual(['P1', 'P2']);
    expect(bySupplier.body.meta).toEqual({ total: 2, limit: 50, offset: 0 });
    const byProduct = await ctx.api.request('GET', '/api/v1/stocks/by-product/P1?limit=1&offset=1');
    expect(byProduct.body).toMatchObject({ payload: [{ supplierExternalId: 'S2', quantity: 3 }], meta: { total: 2, limit: 1, offset: 1 } });
    expect((await ctx.api.request('GET', '/api/v1/stocks/by-supplier/NOBODY')).body.meta.total).toBe(0);

    expect((await ctx.api.request('GET', '/api/v1/stocks/lookup?supplier_id=S2&product_id=P1')).body).toMatchObject({ quantity: 3 });
    const missing = await ctx.api.request('GET', '/api/v1/stocks/lookup?supplier_id=S9&product_id=P1');
    expect(missing.status).toBe(404);
    const noParam = await ctx.api.request('GET', '/api/v1/stocks/lookup?supplier_id=S1');
    expect(noParam.status).toBe(400);
    expect(noParam.body.error.details).toEqual([{ field: 'product_id', message: 'Required' }]);
  });

  it('gives a product its stock in GraphQL, batched across a product list', async () => {
    await ctx.api.request('POST', '/api/v1/products', { body: { products: [{ external_id: 'P1' }, { external_id: 'P2' }] } });
    await push([entry('S1', 'P1', 1), entry('S2', 'P1', 2), entry('S1', 'P2', 5)]);
    const res = await ctx.api.graphql('{ products(filter: {}) { payload { externalId stock { supplierExternalId quantity } } } }');
    const stock = Object.fromEntries(
      res.body.data.products.payload.map((p: { externalId: string; stock: unknown[] }) => [p.externalId, p.stock]),
    );
    expect(stock.P1).toEqual([
      { supplierExternalId: 'S1', quantity: 1 },
      { supplierExternalId: 'S2', quantity: 2 },
    ]);
    expect(stock.P2).toEqual([{ supplierExternalId: 'S1', quantity: 5 }]);
    await ctx.db.prisma.product.deleteMany();
  });
});
