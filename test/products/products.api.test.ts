import { backends } from '../support/database';
import { useApiFixture } from '../support/http';
import { pushAnswer } from '../support/push-answer';

describe.each(backends)('products over REST on %s', (backend) => {
  const ctx = useApiFixture(backend);

  beforeEach(async () => {
    await ctx.db.prisma.product.deleteMany();
  });

  const pending = async (query = '') => (await ctx.api.request('GET', `/api/v1/updated-products${query}`)).body;

  describe('POST /api/v1/products', () => {
    it('creates products from a batch and lists them as new with all their fields', async () => {
      const res = await ctx.api.request('POST', '/api/v1/products', {
        body: {
          products: [
            { external_id: 'P1', erp_id: 11, name: 'Cup', price: 7.5, color: 'red' },
            { external_id: 'P2', name: 'Plate', description: 'flat' },
          ],
        },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(pushAnswer({ processed: 2, created: 2 }));

      const list = await pending();
      expect(list.meta).toEqual({ total: 2, limit: 50, offset: 0 });
      const [p1, p2] = list.payload;
      expect(p1).toEqual({
        id: expect.any(Number),
        revision: 1,
        previous: null,
        externalId: 'P1',
        erpId: 11,
        isNew: true,
        changedFields: ['color', 'erp_id', 'name', 'price'],
        context: 'erp_sync',
        data: { name: 'Cup', price: 7.5, color: 'red' },
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(p2).toMatchObject({ externalId: 'P2', erpId: null, changedFields: ['description', 'name'] });
    });

    it('accepts a single product object as the body', async () => {
      const res = await ctx.api.request('POST', '/api/v1/products', { body: { external_id: 'S1', name: 'Solo' } });
      expect(res.body).toEqual(pushAnswer({ processed: 1, created: 1 }));
      expect((await pending()).payload[0]).toMatchObject({ externalId: 'S1', data: { name: 'Solo' } });
    });

    it('stores the context label given as a query parameter', async () => {
      await ctx.api.request('POST', '/api/v1/products?context=nightly_import', { body: { external_id: 'C1', name: 'x' } });
      expect((await pending()).payload[0].context).toBe('nightly_import');
    });

    it('keeps the good records of a batch and reports each bad one with index, external_id and field', async () => {
      const res = await ctx.api.request('POST', '/api/v1/products', {
        body: {
          products: [
            { external_id: 'G1', price: 1 },
            { external_id: 'B1', price: -5 },
            { name: 'no id' },
            'not an object',
            { external_id: 'B2', erp_id: 1.5, name: 42 },
            { external_id: 'G2', price: 0 },
          ],
        },
      });
      expect(res.status).toBe(200);
      expect(res.body.success).toBe(false);
      expect(res.body.processed).toBe(2);
      expect(res.body.created).toBe(2);
      expect(res.body.errors).toEqual(
        expect.arrayContaining([
          { index: 1, external_id: 'B1', field: 'products[1].price', message: expect.any(String), code: 'INVALID' },
          { index: 2, external_id: null, field: 'products[2].external_id', message: expect.any(String), code: 'INVALID' },
          { index: 3, external_id: null, field: 'products[3]', message: expect.any(String), code: 'INVALID' },
          { index: 4, external_id: 'B2', field: 'products[4].erp_id', message: expect.any(String), code: 'INVALID' },
          { index: 4, external_id: 'B2', field: 'products[4].name', message: expect.any(String), code: 'INVALID' },
        ]),
      );
      expect(res.body.errors).toHaveLength(5);
      expect((await pending()).payload.map((p: { externalId: string }) => p.externalId)).toEqual(['G1', 'G2']);
    });

    it('counts an identical re-sync as neither created nor updated and creates no pending change', async () => {
      const product = { external_id: 'R1', name: 'Same', price: 2, tags: ['a', { b: 1 }] };
      await ctx.api.request('POST', '/api/v1/products', { body: product });
      const [record] = (await pending()).payload;
      await ctx.api.request('DELETE', `/api/v1/updated-products/${record.id}`);

      const again = await ctx.api.request('POST', '/api/v1/products', { body: { products: [{ ...product, tags: ['a', { b: 1 }] }] } });
      expect(again.body).toEqual(pushAnswer({ processed: 1 }));
      expect((await pending()).meta.total).toBe(0);
    });

    it('diffs field by field, extra fields deeply, and keeps fields left out of a partial push', async () => {
      await ctx.api.request('POST', '/api/v1/products', {
        body: { external_id: 'D1', name: 'Cup', price: 1, dims: { w: 1, h: 2 } },
      });
      const [first] = (await pending()).payload;
      await ctx.api.request('DELETE', `/api/v1/updated-products/${first.id}`);

      const res = await ctx.api.request('POST', '/api/v1/products', {
        body: { external_id: 'D1', price: 2, dims: { h: 2, w: 3 } },
      });
      expect(res.body).toMatchObject({ created: 0, updated: 1 });
      const [record] = (await pending()).payload;
      expect(record).toMatchObject({
        isNew: false,
        changedFields: ['dims', 'price'],
        data: { name: 'Cup', price: 2, dims: { w: 3, h: 2 } },
      });
    });

    it('applies repeated external ids of one batch in order', async () => {
      const res = await ctx.api.request('POST', '/api/v1/products', {
        body: {
          products: [
            { external_id: 'X', price: 1 },
            { external_id: 'X', price: 2 },
          ],
        },
      });
      expect(res.body).toMatchObject({ processed: 2, created: 1, updated: 1 });
      expect((await pending()).payload).toEqual([expect.objectContaining({ externalId: 'X', data: { price: 2 } })]);
    });

    it('answers 413 for more than 5000 products and stores none of them', async () => {
      const products = Array.from({ length: 5001 }, (_, i) => ({ external_id: `T${i}` }));
      const res = await ctx.api.request('POST', '/api/v1/products', { body: { products } });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(await ctx.db.prisma.product.count()).toBe(0);
    });

    it.each([
      ['malformed JSON', '{"products": [', 'application/json', 400, 'VALIDATION_FAILED'],
      ['a JSON array body', '[{"external_id":"A"}]', 'application/json', 400, 'VALIDATION_FAILED'],
      ['products not an array', '{"products": {"external_id":"A"}}', 'application/json', 400, 'VALIDATION_FAILED'],
      ['a non-JSON content type', 'external_id=A', 'application/x-www-form-urlencoded', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['an empty body', '', 'application/json', 400, 'VALIDATION_FAILED'],
    ])('rejects %s with the standard error body', async (_name, rawBody, contentType, status, code) => {
      const res = await ctx.api.request('POST', '/api/v1/products', { rawBody, headers: { 'content-type': contentType } });
      expect(res.status).toBe(status);
      expect(res.body.error).toEqual(expect.objectContaining({ code, message: expect.any(String), requestId: expect.any(String) }));
      expect(await ctx.db.prisma.product.count()).toBe(0);
    });

    it('names the field of a missing or mistyped argument', async () => {
      const res = await ctx.api.request('POST', '/api/v1/products', { body: {} });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'products', message: 'Required' }]);
    });
  });

  describe('GET /api/v1/updated-products', () => {
    beforeEach(async () => {
      const products = Array.from({ length: 7 }, (_, i) => ({ external_id: `L${i}`, price: i }));
      await ctx.api.request('POST', '/api/v1/products', { body: { products } });
    });

    it('pages in a stable order by updatedAt then id', async () => {
      const first = await pending('?limit=3');
      const second = await pending('?limit=3&offset=3');
      const third = await pending('?limit=3&offset=6');
      expect(first.meta).toEqual({ total: 7, limit: 3, offset: 0 });
      const ids = [...first.payload, ...second.payload, ...third.payload].map((p: { externalId: string }) => p.externalId);
      expect(ids).toEqual(['L0', 'L1', 'L2', 'L3', 'L4', 'L5', 'L6']);
    });

    it('clamps limit to 500 and reports it in meta.limit', async () => {
      expect((await pending('?limit=10000')).meta.limit).toBe(500);
    });

    it('returns only records updated after since', async () => {
      const all = (await pending()).payload;
      const cut = all[all.length - 1].updatedAt;
      await new Promise((r) => setTimeout(r, 5));
      await ctx.api.request('POST', '/api/v1/products', { body: { external_id: 'LATE', price: 1 } });
      const after = await pending(`?since=${encodeURIComponent(cut)}`);
      expect(after.payload.map((p: { externalId: string }) => p.externalId)).toEqual(['LATE']);
    });

    it.each([
      ['limit=abc', 'limit'],
      ['since=yesterday', 'since'],
      ['limit=0', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=2.5', 'limit'],
      ['offset=-3', 'offset'],
    ])('rejects %s with 400 naming the field', async (query, field) => {
      const res = await ctx.api.request('GET', `/api/v1/updated-products?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details).toEqual([expect.objectContaining({ field })]);
    });
  });

  describe('acknowledgements', () => {
    it('DELETE acknowledges one record; unknown ids are 404; a second ack is harmless', async () => {
      await ctx.api.request('POST', '/api/v1/products', { body: { external_id: 'A1', price: 1 } });
      const [record] = (await pending()).payload;
      const ack = await ctx.api.request('DELETE', `/api/v1/updated-products/${record.id}`);
      expect(ack.status).toBe(200);
      expect(ack.body).toEqual({ success: true, acknowledged: 1 });
      expect((await pending()).meta.total).toBe(0);
      expect((await ctx.api.request('DELETE', `/api/v1/updated-products/${record.id}`)).status).toBe(200);

      const missing = await ctx.api.request('DELETE', '/api/v1/updated-products/987654');
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('NOT_FOUND');
      const bad = await ctx.api.request('DELETE', '/api/v1/updated-products/abc');
      expect(bad.status).toBe(400);
      expect(bad.body.error.details).toEqual([expect.objectContaining({ field: 'id' })]);
    });

    it('batch-delete acknowledges the known ids and lists the unknown ones', async () => {
      await ctx.api.request('POST', '/api/v1/products', {
        body: { products: [{ external_id: 'B1' }, { external_id: 'B2' }, { external_id: 'B3' }] },
      });
      const ids = (await pending()).payload.map((p: { id: number }) => p.id);
      const res = await ctx.api.request('POST', '/api/v1/updated-products/batch-delete', { body: { ids: [ids[0], ids[1], 999999] } });
      expect(res.body).toEqual({ success: true, acknowledged: 2, notFound: [999999], notListed: [] });
      expect((await pending()).payload.map((p: { id: number }) => p.id)).toEqual([ids[2]]);
    });

    it.each([
      ['ids missing', {}, 400],
      ['ids not integers', { ids: ['x'] }, 400],
      ['ids empty', { ids: [] }, 400],
      ['more than 10,000 ids', { ids: Array.from({ length: 10_001 }, (_, i) => i + 1) }, 413],
    ])('batch-delete rejects %s', async (_name, body, status) => {
      const res = await ctx.api.request('POST', '/api/v1/updated-products/batch-delete', { body });
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe(status === 413 ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_FAILED');
    });

    it('never swallows a change that arrived after the acknowledged version was listed', async () => {
      await ctx.api.request('POST', '/api/v1/products', { body: { external_id: 'RACE', name: 'v1', price: 1 } });
      const [listed] = (await pending()).payload;

      // The ERP changes the price while the webshop is still processing what it listed.
      await ctx.api.request('POST', '/api/v1/products', { body: { external_id: 'RACE', price: 2 } });
      await ctx.api.request('DELETE', `/api/v1/updated-products/${listed.id}`);

      const after = await pending();
      expect(after.payload).toEqual([
        expect.objectContaining({ id: listed.id, isNew: false, changedFields: ['price'], data: { name: 'v1', price: 2 } }),
      ]);
      // Once the newer version is listed and acknowledged, nothing is pending.
      await ctx.api.request('POST', '/api/v1/updated-products/batch-delete', { body: { ids: [listed.id] } });
      expect((await pending()).meta.total).toBe(0);
    });

    it('a change after the ack makes the record pending again with just the new fields', async () => {
      await ctx.api.request('POST', '/api/v1/products', { body: { external_id: 'AGAIN', name: 'n', price: 1 } });
      const [listed] = (await pending()).payload;
      await ctx.api.request('DELETE', `/api/v1/updated-products/${listed.id}`);
      await ctx.api.request('POST', '/api/v1/products', { body: { external_id: 'AGAIN', name: 'renamed' } });
      expect((await pending()).payload).toEqual([expect.objectContaining({ isNew: false, changedFields: ['name'] })]);
    });
  });

  it('answers unknown routes and wrong methods with the standard error body', async () => {
    const unknown = await ctx.api.request('GET', '/api/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    const wrongMethod = await ctx.api.request('PUT', '/api/v1/updated-products');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.error.code).toBe('METHOD_NOT_ALLOWED');
  });
});
