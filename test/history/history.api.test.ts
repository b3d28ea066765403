import { createToken } from '../../src/auth/token.service';
import { pruneExpired } from '../../src/queue/retention';
import { backends } from '../support/database';
import { useApiFixture } from '../support/http';

type Entry = {
  recordId: number;
  revision: number;
  changedAt: string;
  tokenName: string | null;
  action: 'created' | 'updated';
  changes: Array<{ field: string; old: unknown; new: unknown }>;
  pricelistExternalId: string | null;
};

const DAY = 86_400_000;

/** Change history (ADR 0031): written in the push, read by GraphQL and REST, pruned by retention. */
describe.each(backends)('change history on %s', (backend) => {
  const ctx = useApiFixture(backend);
  let erp: string;
  let admin: string;
  const post = (path: string, body: unknown, token = erp) => ctx.api.request('POST', path, { body, token });
  type Answer = {
    entityType: string;
    externalId: string;
    entries: Entry[];
    error?: { code: string; details: Array<{ field: string; message: string }> };
  };
  const history = (type: string, externalId: string, query = '') =>
    // Read as admin: token names are shown to admin only (ADR 0044).
    ctx.api.request<Answer>('GET', `/api/v1/history/${type}/${encodeURIComponent(externalId)}${query}`, { token: admin });
  const historyRows = () => ctx.db.prisma.changeHistoryEntry.count();

  beforeAll(async () => {
    erp = (await createToken(ctx.db.prisma, `erp-history-${backend}`)).token;
    admin = (await createToken(ctx.db.prisma, `admin-history-${backend}`, 'admin')).token;
  });
  beforeEach(async () => {
    await ctx.db.prisma.changeHistoryEntry.deleteMany();
    await ctx.db.prisma.product.deleteMany();
    await ctx.db.prisma.partner.deleteMany();
    await ctx.db.prisma.saleOrder.deleteMany();
    await ctx.db.prisma.purchaseOrder.deleteMany();
  });

  it('records create and updates newest first, with revision, token name and old and new value per changed field', async () => {
    expect((await post('/api/v1/products', { external_id: 'H1', erp_id: 7, name: 'Chair', price: 10 })).body.created).toBe(1);
    expect((await post('/api/v1/products', { external_id: 'H1', name: 'Chair', price: 12 })).body.updated).toBe(1);
    // One push with two records of one id: one entry, from the stored value to the last one.
    const both = await post('/api/v1/products', {
      products: [
        { external_id: 'H1', price: 13, colour: 'red' },
        { external_id: 'H1', price: 14, erp_id: 8 },
      ],
    });
    expect(both.body.updated).toBe(2);

    const res = await history('product', 'H1');
    expect(res.status).toBe(200);
    expect(res.body.entityType).toBe('product');
    const [third, second, first] = res.body.entries;
    expect(res.body.entries).toHaveLength(3);
    expect(first).toMatchObject({
      revision: 1,
      action: 'created',
      tokenName: `erp-history-${backend}`,
      changes: [
        { field: 'erp_id', old: null, new: 7 },
        { field: 'name', old: null, new: 'Chair' },
        { field: 'price', old: null, new: 10 },
      ],
      pricelistExternalId: null,
    });
    expect(second).toMatchObject({ revision: 2, action: 'updated', changes: [{ field: 'price', old: 10, new: 12 }] });
    expect(third).toMatchObject({
      revision: 3,
      changes: [
        { field: 'colour', old: null, new: 'red' },
        { field: 'erp_id', old: 7, new: 8 },
        { field: 'price', old: 12, new: 14 },
      ],
    });
    // changedAt is the record's updatedAt of that revision.
    const product = await ctx.db.prisma.product.findUniqueOrThrow({ where: { externalId: 'H1' } });
    expect(third!.changedAt).toBe(product.updatedAt.toISOString());
    expect(third!.recordId).toBe(product.id);

    const gql = await ctx.api.graphql(
      `{ product(externalId: "H1") { history(limit: 2) { revision action tokenName changes { field old new } } } }`,
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.product.history.map((e: Entry) => e.revision)).toEqual([3, 2]);
  });

  it('writes nothing for unchanged records, stale-skipped records and dry runs', async () => {
    await post('/api/v1/products', { external_id: 'H2', price: 1, source_updated_at: '2026-11-22T10:00:00Z' });
    expect(await historyRows()).toBe(1);
    expect((await post('/api/v1/products', { external_id: 'H2', price: 1 })).body).toMatchObject({ updated: 0 });
    const stale = await post('/api/v1/products', { external_id: 'H2', price: 5, source_updated_at: '2026-11-22T09:00:00Z' });
    expect(stale.body).toMatchObject({ skipped: 1 });
    const dry = await post('/api/v1/products?dry_run=true', {
      products: [
        { external_id: 'H2', price: 6 },
        { external_id: 'H3', price: 1, pricelists: [{ pricelist_external_id: 'PL', pricelist_name: 'Retail', price: 1 }] },
      ],
    });
    expect(dry.body).toMatchObject({ dryRun: true, created: 1, updated: 1 });
    const dryPartner = await post('/api/v1/partners?dry_run=true', { external_id: 'HP-DRY', type: 'B', name: 'x' });
    expect(dryPartner.body).toMatchObject({ dryRun: true, created: 1 });
    expect(await historyRows()).toBe(1);
    expect((await history('product', 'H2')).body.entries).toHaveLength(1);
  });

  it('writes no entry for a resync', async () => {
    await post('/api/v1/products', { external_id: 'H4', price: 1 });
    const resync = await post('/api/v1/resync', { entity_type: 'product', external_ids: ['H4'] }, admin);
    expect(resync.body).toEqual({ resynced: 1 });
    expect((await history('product', 'H4')).body.entries.map((e: Entry) => e.revision)).toEqual([1]);
  });

  it('keeps the history of partners, sale orders, purchase orders and price items', async () => {
    await post('/api/v1/partners', { external_id: 'HP', type: 'B', name: 'Acme' });
    await post('/api/v1/partners', { external_id: 'HP', type: 'C', name: 'Acme Ltd' });
    await post('/api/v1/sale-orders', { external_id: 'HS', direction: 'outbound', state: 'draft' });
    await post('/api/v1/sale-orders', { external_id: 'HS', direction: 'outbound', state: 'sale' });
    const order = { external_id: 'HPO', supplier_external_id: 'HP', lines: [{ product_external_id: 'HX', quantity: 1, price: 2 }] };
    await post('/api/v1/purchase-orders', order);
    await post('/api/v1/purchase-orders', { ...order, lines: [{ product_external_id: 'HX', quantity: 3, price: 2 }] });
    const prices = (retail: number, end?: string) => ({
      external_id: 'HX',
      pricelists: [
        { pricelist_external_id: 'RETAIL', pricelist_name: 'Retail', price: retail, ...(end ? { end_date: end } : {}) },
        { pricelist_external_id: 'WHOLESALE', pricelist_name: 'Wholesale', price: 1 },
      ],
    });
    await post('/api/v1/products', prices(5));
    await post('/api/v1/products', prices(6, '2026-12-31'));
    // A rename alone is no tracked change of the item: no entry.
    await post('/api/v1/products', {
      ...prices(6, '2026-12-31'),
      pricelists: [{ ...prices(6, '2026-12-31').pricelists[0]!, pricelist_name: 'Shop' }],
    });

    expect((await history('partner', 'HP')).body.entries[0]).toMatchObject({
      revision: 2,
      changes: [
        { field: 'name', old: 'Acme', new: 'Acme Ltd' },
        { field: 'type', old: 'B', new: 'C' },
      ],
    });
    expect((await history('sale_order', 'HS')).body.entries[0]!.changes).toEqual([{ field: 'state', old: 'draft', new: 'sale' }]);
    expect((await history('purchase_order', 'HPO')).body.entries[0]!.changes).toEqual([
      { field: 'lines', old: order.lines, new: [{ product_external_id: 'HX', quantity: 3, price: 2 }] },
    ]);
    const items = (await history('price_item', 'HX')).body.entries;
    expect(items.map((e: Entry) => [e.pricelistExternalId, e.action, e.revision])).toEqual([
      ['RETAIL', 'updated', 2],
      ['WHOLESALE', 'created', 1],
      ['RETAIL', 'created', 1],
    ]);
    expect(items[0]!.changes).toEqual([
      { field: 'end_date', old: null, new: '2026-12-31' },
      { field: 'price', old: 5, new: 6 },
    ]);
    expect(items[2]!.changes).toEqual([
      { field: 'end_date', old: null, new: null },
      { field: 'price', old: null, new: 5 },
      { field: 'start_date', old: null, new: null },
    ]);

    const gql = await ctx.api.graphql(`{
      partners(limit: 10) { payload { externalId history { revision } } }
      saleOrders(limit: 10) { payload { externalId history(limit: 1) { revision } } }
      purchaseOrders(limit: 10) { payload { externalId history { revision changes { field } } } }
      pricelistItems(pricelistId: "RETAIL") { payload { history { revision pricelistExternalId } } }
    }`);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.partners.payload[0].history.map((e: Entry) => e.revision)).toEqual([2, 1]);
    expect(gql.body.data.saleOrders.payload[0].history).toEqual([{ revision: 2 }]);
    expect(gql.body.data.purchaseOrders.payload[0].history[0]).toEqual({ revision: 2, changes: [{ field: 'lines' }] });
    expect(gql.body.data.pricelistItems.payload[0].history).toEqual([
      { revision: 2, pricelistExternalId: 'RETAIL' },
      { revision: 1, pricelistExternalId: 'RETAIL' },
    ]);

    // REST answers holding these types do not carry history (it is GraphQL only there).
    const listed = await ctx.api.request('GET', '/api/v1/pricelists/updated');
    expect(listed.body.payload[0]).not.toHaveProperty('history');
  });

  it('chains old and new values without a gap when pushes of the same records run at once', async () => {
    const push = (i: number) =>
      post('/api/v1/products', {
        external_id: 'HC',
        price: i,
        pricelists: [{ pricelist_external_id: 'RETAIL', pricelist_name: 'Retail', price: i }],
      });
    await push(0);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => push(i + 1)));
    expect(answers.every((a) => a.status === 200 && a.body.success)).toBe(true);
    for (const type of ['product', 'price_item']) {
      const entries = (await history(type, 'HC')).body.entries.reverse();
      expect(entries.map((e) => e.revision)).toEqual([...Array(9).keys()].map((i) => i + 1));
      const prices = entries.map((e) => e.changes.find((c) => c.field === 'price')!);
      // Each change starts where the one before it ended: no change lost, none seen twice.
      for (let i = 1; i < prices.length; i++) expect(prices[i]!.old).toBe(prices[i - 1]!.new);
      expect(new Set(prices.map((c) => c.new)).size).toBe(9);
    }
  });

  it('refuses bad entity types and limits, and answers 404 for an unknown record', async () => {
    for (let i = 1; i <= 22; i++) await post('/api/v1/products', { external_id: 'H5', price: i });
    expect((await history('product', 'H5')).body.entries).toHaveLength(20);
    expect((await history('product', 'H5', '?limit=1')).body.entries.map((e: Entry) => e.revision)).toEqual([22]);
    expect((await history('product', 'H5', '?limit=100')).body.entries).toHaveLength(22);
    for (const limit of ['0', '101', '-1']) {
      const bad = await history('product', 'H5', `?limit=${limit}`);
      expect(bad.status).toBe(400);
      expect(bad.body.error!.details).toEqual([{ field: 'limit', message: 'Must be between 1 and 100' }]);
    }
    const unknown = await history('widget', 'H5');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error!.details[0]).toMatchObject({ field: 'entityType', message: expect.stringContaining('"widget"') });
    const both = await history('widget', 'H5', '?limit=0');
    expect(both.body.error!.details.map((d) => d.field)).toEqual(['entityType', 'limit']);
    const stock = await history('stock', 'H5');
    expect(stock.status).toBe(400);
    expect(stock.body.error!.details[0]!.message).toMatch(/Stocks keep no history/);
    const missing = await history('product', 'NO-SUCH');
    expect(missing.status).toBe(404);
    expect(missing.body.error!.code).toBe('NOT_FOUND');
    expect((await history('price_item', 'H5')).status).toBe(404);
    const gql = await ctx.api.graphql('{ product(externalId: "H5") { history(limit: 0) { revision } } }');
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('deletes entries older than historyDays in the retention run, and keeps them with 0', async () => {
    await post('/api/v1/products', { external_id: 'H6', price: 1 });
    await post('/api/v1/products', { external_id: 'H6', price: 2 });
    const id = (await ctx.db.prisma.product.findUniqueOrThrow({ where: { externalId: 'H6' } })).id;
    const now = new Date(Date.now() + 100 * DAY);
    // The first entry is 100 days old at `now`, the second 50.
    await ctx.db.prisma.changeHistoryEntry.updateMany({
      where: { recordId: id, revision: 2 },
      data: { changedAt: new Date(Date.now() + 50 * DAY) },
    });

    const policy = { completedDays: 0, resolvedDays: 0 };
    expect(await pruneExpired(ctx.db.prisma, { ...policy, historyDays: 0 }, { now })).toMatchObject({ historyEntries: 0 });
    expect(await pruneExpired(ctx.db.prisma, { ...policy, historyDays: 90 }, { now, batchSize: 1 })).toEqual({
      completedItems: 0,
      resolvedFailures: 0,
      historyEntries: 1,
      finished: true,
    });
    expect((await history('product', 'H6')).body.entries.map((e: Entry) => e.revision)).toEqual([2]);
    // A record whose entries are all gone still exists: an empty list, not a 404.
    await pruneExpired(ctx.db.prisma, { ...policy, historyDays: 1 }, { now });
    const empty = await history('product', 'H6');
    expect(empty.status).toBe(200);
    expect(empty.body.entries).toEqual([]);
  });
});
