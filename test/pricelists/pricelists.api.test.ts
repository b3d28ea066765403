import { backends } from '../support/database';
import { useApiFixture } from '../support/http';

describe.each(backends)('pricelists over REST on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const pushProducts = (products: unknown[]) => ctx.api.request('POST', '/api/v1/products', { body: { products } });
  const updated = async (query = '') => (await ctx.api.request('GET', `/api/v1/pricelists/updated${query}`)).body;
  const ackAll = async () => {
    const ids = (await updated('?limit=500')).payload.map((i: { id: number }) => i.id);
    if (ids.length) await ctx.api.request('POST', '/api/v1/pricelists/updated/batch-delete', { body: { ids } });
  };
  const retail = (price: number, extra: Record<string, unknown> = {}) => ({
    pricelist_external_id: 'RETAIL',
    pricelist_name: 'Retail EUR',
    price,
    ...extra,
  });

  beforeEach(async () => {
    await ctx.db.prisma.priceItem.deleteMany();
    await ctx.db.prisma.product.deleteMany();
  });

  it('extracts price items from products and lists them with exactly the fields of SPEC 2.3', async () => {
    const res = await pushProducts([
      {
        external_id: 'P1',
        name: 'Cup',
        pricelists: [
          retail(7.5, { start_date: '2026-12-01', end_date: '2026-12-31' }),
          { pricelist_external_id: 'B2B', pricelist_name: 'Trade', price: 5 },
        ],
      },
    ]);
    expect(res.body).toMatchObject({ success: true, created: 1 });
    const list = await updated();
    expect(list.meta).toEqual({ total: 2, limit: 50, offset: 0 });
    const item = list.payload.find((i: { pricelistExternalId: string }) => i.pricelistExternalId === 'RETAIL');
    expect(item).toEqual({
      id: expect.any(Number),
      revision: 1,
      pricelistExternalId: 'RETAIL',
      pricelistName: 'Retail EUR',
      productExternalId: 'P1',
      price: 7.5,
      previousPrice: null,
      isNew: true,
      startDate: '2026-12-01',
      endDate: '2026-12-31',
      updatedAt: expect.any(String),
    });
    // The pricelists are records of their own, not product data.
    const product = (await ctx.api.request('GET', '/api/v1/updated-products')).body.payload[0];
    expect(product.data).toEqual({ name: 'Cup' });
  });

  it('flags an item only when its price or dates actually change, with previousPrice', async () => {
    await pushProducts([{ external_id: 'P1', pricelists: [retail(10)] }]);
    await ackAll();

    await pushProducts([{ external_id: 'P1', pricelists: [retail(10)] }]);
    expect((await updated()).meta.total).toBe(0);

    await pushProducts([{ external_id: 'P1', pricelists: [{ ...retail(10), pricelist_name: 'Retail (renamed)' }] }]);
    expect((await updated()).meta.total).toBe(0);
    expect((await ctx.api.request('GET', '/api/v1/pricelists')).body.payload).toEqual([
      { id: 'RETAIL', name: 'Retail (renamed)', itemCount: 1 },
    ]);

    await pushProducts([{ external_id: 'P1', pricelists: [retail(12)] }]);
    expect((await updated()).payload).toEqual([expect.objectContaining({ price: 12, previousPrice: 10, isNew: false })]);
    await ackAll();

    await pushProducts([{ external_id: 'P1', pricelists: [retail(12, { start_date: '2027-01-01' })] }]);
    expect((await updated()).payload).toEqual([expect.objectContaining({ price: 12, previousPrice: 10, startDate: '2027-01-01' })]);
  });

  it('keeps a price change that arrives after the listing pending through the ack', async () => {
    await pushProducts([{ external_id: 'P1', pricelists: [retail(1)] }]);
    const listed = (await updated()).payload[0];
    await pushProducts([{ external_id: 'P1', pricelists: [retail(2)] }]);
    const ack = await ctx.api.request('POST', '/api/v1/pricelists/updated/batch-delete', { body: { ids: [listed.id, 987654] } });
    expect(ack.body).toEqual({ success: true, acknowledged: 1, notFound: [987654], notListed: [] });
    expect((await updated()).payload).toEqual([expect.objectContaining({ id: listed.id, price: 2, previousPrice: 1, isNew: false })]);
  });

  it('rejects a product with a bad price entry, naming the field, and keeps the others', async () => {
    const res = await pushProducts([
      { external_id: 'OK', pricelists: [retail(1)] },
      { external_id: 'NEG', pricelists: [retail(-1)] },
      { external_id: 'DATE', pricelists: [retail(1, { start_date: '2026-13-01' })] },
      { external_id: 'ORDER', pricelists: [retail(1, { start_date: '2026-12-31', end_date: '2026-12-01' })] },
      { external_id: 'SHAPE', pricelists: { RETAIL: 1 } },
    ]);
    expect(res.body.processed).toBe(1);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'products[1].pricelists[0].price',
      'products[2].pricelists[0].start_date',
      'products[3].pricelists[0].end_date',
      'products[4].pricelists',
    ]);
    expect(await ctx.db.prisma.priceItem.count()).toBe(1);
  });

  it('lists distinct pricelists and every item of one pricelist, 404 for an unknown one', async () => {
    await pushProducts([
      { external_id: 'P1', pricelists: [retail(1), { pricelist_external_id: 'B2B', pricelist_name: 'Trade', price: 0.5 }] },
      { external_id: 'P2', pricelists: [retail(2)] },
      { external_id: 'P3', pricelists: [retail(3)] },
    ]);
    await ackAll();
    const lists = await ctx.api.request('GET', '/api/v1/pricelists');
    expect(lists.body).toEqual({
      payload: [
        { id: 'B2B', name: 'Trade', itemCount: 1 },
        { id: 'RETAIL', name: 'Retail EUR', itemCount: 3 },
      ],
      meta: { total: 2, limit: 50, offset: 0 },
    });
    const page = await ctx.api.request('GET', '/api/v1/pricelists/RETAIL/items?limit=2&offset=1');
    expect(page.body.meta).toEqual({ total: 3, limit: 2, offset: 1 });
    expect(page.body.payload.map((i: { productExternalId: string }) => i.productExternalId)).toEqual(['P2', 'P3']);
    const missing = await ctx.api.request('GET', '/api/v1/pricelists/NOPE/items');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    expect((await ctx.api.request('GET', '/api/v1/pricelists/RETAIL/items?limit=x')).status).toBe(400);
  });

  it("exposes a product's prices in GraphQL", async () => {
    await pushProducts([{ external_id: 'G1', pricelists: [retail(4)] }]);
    const res = await ctx.api.graphql(
      '{ product(externalId: "G1") { priceItems { pricelistExternalId price } } pendingChanges { priceItems } }',
    );
    expect(res.body.data).toEqual({
      product: { priceItems: [{ pricelistExternalId: 'RETAIL', price: 4 }] },
      pendingChanges: { priceItems: 1 },
    });
  });
});
