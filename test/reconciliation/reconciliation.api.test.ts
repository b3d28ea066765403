import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import { createToken } from '../../src/auth/token.service';
import { backends } from '../support/database';
import { useApiFixture } from '../support/http';

/** What a receiver computes (docs/api.md): SHA-256 hex of the RFC 8785 canonical JSON of data. */
const digest = (data: unknown) => createHash('sha256').update(canonicalize(data)).digest('hex');

/** Resync (ADR 0029) and reconciliation over REST and GraphQL. */
describe.each(backends)('resync and reconciliation on %s', (backend) => {
  const ctx = useApiFixture(backend);
  let admin: string;
  const post = (path: string, body: unknown, token?: string) => ctx.api.request('POST', path, { body, ...(token ? { token } : {}) });
  const pending = async (path: string) => (await ctx.api.request('GET', `${path}?limit=500`)).body.payload;
  const ackAll = async (path: string) => {
    const ids = (await pending(path)).map((r: { id: number }) => r.id);
    if (ids.length > 0) await post(`${path}/batch-delete`, { ids });
  };

  beforeAll(async () => {
    admin = (await createToken(ctx.db.prisma, `resync-admin-${backend}`, 'admin')).token;
  });
  beforeEach(async () => {
    await ctx.db.prisma.product.deleteMany();
    await ctx.db.prisma.partner.deleteMany();
    await ctx.db.prisma.stock.deleteMany();
    await ctx.db.prisma.saleOrder.deleteMany();
  });

  describe('POST /api/v1/resync', () => {
    it('marks acknowledged records pending again with all their fields, isNew unchanged, revision and updatedAt moved on', async () => {
      await post('/api/v1/products', {
        products: [
          { external_id: 'R1', erp_id: 1, name: 'a', price: 2 },
          { external_id: 'R2', name: 'b' },
        ],
      });
      await ackAll('/api/v1/updated-products');
      const old = await ctx.db.prisma.product.findUnique({ where: { externalId: 'R1' } });
      await post('/api/v1/products', { external_id: 'R1', price: 3 });
      await ackAll('/api/v1/updated-products');

      const preview = await post('/api/v1/resync?dry_run=true', { entity_type: 'product', external_ids: ['R1'] }, admin);
      expect(preview.body).toEqual({ resynced: 1 });
      expect(await pending('/api/v1/updated-products')).toEqual([]);

      const res = await post('/api/v1/resync', { entity_type: 'product', external_ids: ['R1'] }, admin);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ resynced: 1 });
      const [record] = await pending('/api/v1/updated-products');
      expect(record).toMatchObject({ externalId: 'R1', isNew: false, changedFields: ['erp_id', 'name', 'price'], revision: 3 });
      expect(new Date(record.updatedAt).getTime()).toBeGreaterThan(old!.updatedAt.getTime());
      // An acknowledgement of the revision before the resync covers nothing of it.
      const stale = await post('/api/v1/updated-products/batch-delete', { items: [{ id: record.id, revision: 2 }] });
      expect(stale.body.acknowledged).toBe(1);
      expect(await pending('/api/v1/updated-products')).toHaveLength(1);
      await post('/api/v1/updated-products/batch-delete', { items: [{ id: record.id, revision: 3 }] });
      expect(await pending('/api/v1/updated-products')).toEqual([]);
    });

    it('filters by time, partner type, direction, and matches stock entries by product id', async () => {
      await post('/api/v1/partners', {
        partners: [
          { external_id: 'B1', type: 'B' },
          { external_id: 'C1', type: 'C', parent_external_id: 'B1' },
        ],
      });
      await post('/api/v1/sale-orders', {
        sale_orders: [
          { external_id: 'SO1', direction: 'inbound' },
          { external_id: 'SO2', direction: 'outbound' },
        ],
      });
      await post('/api/v1/stocks', {
        stocks: [
          { supplier_external_id: 'S', product_external_id: 'P1', quantity: 1 },
          { supplier_external_id: 'S', product_external_id: 'P2', quantity: 1 },
        ],
      });
      await ackAll('/api/v1/updated-partners');
      await ackAll('/api/v1/updated-sale-orders');
      await ackAll('/api/v1/stocks/changed');

      expect((await post('/api/v1/resync', { entity_type: 'partner', partner_type: 'C' }, admin)).body).toEqual({ resynced: 1 });
      expect((await post('/api/v1/resync', { entity_type: 'sale_order', direction: 'outbound' }, admin)).body).toEqual({ resynced: 1 });
      expect((await post('/api/v1/resync', { entity_type: 'stock', external_ids: ['P2'] }, admin)).body).toEqual({ resynced: 1 });
      expect((await pending('/api/v1/stocks/changed')).map((s: { productExternalId: string }) => s.productExternalId)).toEqual(['P2']);
      const future = new Date(Date.now() + 3_600_000).toISOString();
      expect((await post('/api/v1/resync', { entity_type: 'product', since: future }, admin)).body).toEqual({ resynced: 0 });
      const gql = await ctx.api.request('POST', '/graphql', {
        token: admin,
        body: { query: 'mutation { resync(entity_type: "partner", external_ids: ["B1"]) { resynced } }' },
      });
      expect(gql.body.data.resync).toEqual({ resynced: 1 });
    });

    it.each([
      [{ entity_type: 'widget' }, 'entity_type'],
      [{ entity_type: 'product', since: '2026-11-22T10:00:00Z', until: '2026-11-22T09:00:00Z' }, 'since'],
      [{ entity_type: 'product', partner_type: 'B' }, 'partner_type'],
      [{ entity_type: 'sale_order', direction: 'sideways' }, 'direction'],
      [{ entity_type: 'product', external_ids: [] }, 'external_ids'],
      [{ entity_type: 'product', colour: 'red' }, 'colour'],
      [{}, 'entity_type'],
    ])('refuses %j with a 400 naming %s', async (body, field) => {
      const res = await post('/api/v1/resync', body, admin);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    });

    it('runs beside pushes of the same rows without deadlock, and every change stays pending until acknowledged', async () => {
      const products = Array.from({ length: 40 }, (_v, i) => ({ external_id: `CC-${i}`, n: 0 }));
      await post('/api/v1/products', { products });
      for (let round = 1; round <= 5; round++) {
        const pushed = products.map((p) => ({ ...p, n: round })).reverse();
        const results = await Promise.all([
          post('/api/v1/resync', { entity_type: 'product' }, admin),
          post('/api/v1/products', { products: pushed }),
          post('/api/v1/resync', { entity_type: 'product', external_ids: pushed.slice(0, 20).map((p) => p.external_id) }, admin),
        ]);
        expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
      }
      const listed = await pending('/api/v1/updated-products');
      expect(listed).toHaveLength(40);
      expect(listed.every((p: { data: { n: number } }) => p.data.n === 5)).toBe(true);
    });

    it('refuses more than 10,000 external_ids with a 413', async () => {
      const external_ids = Array.from({ length: 10_001 }, (_v, i) => `X${i}`);
      const res = await post('/api/v1/resync', { entity_type: 'product', external_ids }, admin);
      expect(res.status).toBe(413);
      expect(res.body.error.details).toEqual([{ field: 'external_ids', message: expect.any(String) }]);
    });

    it('is admin only', async () => {
      const res = await post('/api/v1/resync', { entity_type: 'product' });
      expect(res.status).toBe(403);
    });
  });

  describe('reconciliation', () => {
    it('summarises every entity type', async () => {
      await post('/api/v1/products', { products: [{ external_id: 'A' }, { external_id: 'B' }] });
      const res = await ctx.api.request('GET', '/api/v1/reconciliation');
      expect(res.status).toBe(200);
      expect(res.body.entities.map((e: { entityType: string }) => e.entityType)).toEqual([
        'product',
        'partner',
        'sale_order',
        'purchase_order',
        'price_item',
        'stock',
      ]);
      expect(res.body.entities[0]).toEqual({
        entityType: 'product',
        records: 2,
        pending: 2,
        neverAcknowledged: 2,
        oldestPendingAt: expect.any(String),
        oldestPendingAgeSeconds: expect.any(Number),
        lastPushAt: expect.any(String),
        lastAcknowledgedAt: null,
      });
    });

    it('reports missing, extra, mismatched (with fields) and pending records, and resyncs them on request', async () => {
      await post('/api/v1/products', {
        products: [
          { external_id: 'M1', name: 'one', price: 1 },
          { external_id: 'M2', name: 'two', price: 2 },
          { external_id: 'M3', name: 'three' },
          { external_id: 'M4', name: 'four' },
        ],
      });
      await ackAll('/api/v1/updated-products');
      await post('/api/v1/products', { external_id: 'M4', name: 'vier' });
      const items = [
        { external_id: 'M1', digest: digest({ price: 1, name: 'one' }) },
        { external_id: 'M2', digest: digest({ name: 'two', price: 20 }), field_digests: { name: digest('two'), price: digest(20) } },
        { external_id: 'M4', digest: digest({ name: 'four' }) },
        { external_id: 'M9', digest: digest({}) },
      ];
      const res = await post('/api/v1/reconciliation/product', { items, after: 'M' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        compared: 2,
        missing: ['M3'],
        extra: ['M9'],
        mismatched: [{ external_id: 'M2', fields: ['price'] }],
        pending: ['M4'],
        resynced: null,
      });
      // Resync has the effect of POST /api/v1/resync, so it needs the same role: the webshop's token may only compare.
      const refused = await post('/api/v1/reconciliation/product', { items, after: 'M', resync: true });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN' });
      expect((await pending('/api/v1/updated-products')).map((p: { externalId: string }) => p.externalId)).toEqual(['M4']);
      const fixed = await post('/api/v1/reconciliation/product', { items, after: 'M', resync: true }, admin);
      expect(fixed.body).toMatchObject({ resynced: 2 });
      const listed = (await pending('/api/v1/updated-products')).map((p: { externalId: string }) => p.externalId).sort();
      expect(listed).toEqual(['M2', 'M3', 'M4']);
    });

    it('checks a whole catalogue in chunks: after is exclusive, to_end has no upper bound', async () => {
      const data = (i: number) => ({ name: `n${i}` });
      await post('/api/v1/products', { products: [1, 2, 3, 4, 5].map((i) => ({ external_id: `A${i}`, ...data(i) })) });
      await ackAll('/api/v1/updated-products');
      const item = (i: number) => ({ external_id: `A${i}`, digest: digest(data(i)) });
      const first = await post('/api/v1/reconciliation/product', { items: [item(1), item(2)], after: '' });
      expect(first.body).toMatchObject({ compared: 2, missing: [], mismatched: [] });
      const last = await post('/api/v1/reconciliation/product', { items: [item(4)], after: 'A2', to_end: true });
      expect(last.body).toMatchObject({ compared: 1, missing: ['A3', 'A5'], mismatched: [] });
    });

    it.each([
      ['widget', { items: [{ external_id: 'A', digest: 'a'.repeat(64) }] }, 'entityType'],
      ['stock', { items: [{ external_id: 'A', digest: 'a'.repeat(64) }] }, 'entityType'],
      ['product', { items: [{ external_id: 'A', digest: 'xyz' }] }, 'items[0].digest'],
      ['product', { items: [{ external_id: 'A', digest: 'a'.repeat(64), field_digests: { name: 5 } }] }, 'items[0].field_digests.name'],
      ['product', { items: [{ external_id: 'A', digest: 'a'.repeat(64), field_digests: [1] }] }, 'items[0].field_digests'],
      ['product', { items: [] }, 'items'],
      ['product', { items: [{ external_id: 'B', digest: 'a'.repeat(64) }], after: 'C' }, 'after'],
      ['product', { items: [{ external_id: 'B', digest: 'a'.repeat(64) }], to: 'C', to_end: true }, 'to_end'],
    ])('refuses POST /api/v1/reconciliation/%s %j with a 400 naming %s', async (type, body, field) => {
      const res = await post(`/api/v1/reconciliation/${type}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    });

    it('refuses more than 10,000 items with a 413', async () => {
      const items = Array.from({ length: 10_001 }, (_v, i) => ({ external_id: `X${i}`, digest: 'a'.repeat(64) }));
      const res = await post('/api/v1/reconciliation/product', { items });
      expect(res.status).toBe(413);
    });
  });
});
