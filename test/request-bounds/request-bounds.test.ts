import { schema } from '../../src/modules';
import { backends } from '../support/database';
import { maximalQueries, selectsLists } from '../support/maximal-queries';
import { useApiFixture, type JsonResponse } from '../support/http';

/**
 * Issue 30: no request a token may send costs more than its bounds (ADR 0043). The 2,145-byte
 * query that took replicas down, and the largest queries the schema allows, are refused before
 * they run or answered within MAX_RESPONSE_BYTES; an answer over it fails alone.
 */

/** Issue 30's query: 15 aliases of a full page of products with every nested list. */
const ATTACK = `{ ${Array.from(
  { length: 15 },
  (_, i) =>
    `p${i}: products(limit:500, offset:${i * 500}) { payload { id data priceItems { id price } stock { quantity } ` +
    'history(limit:100) { revision changes { field old new } } } }',
).join(' ')} }`;

const GRAPHQL_RESPONSE = { accept: 'application/graphql-response+json' };

describe.each(backends)('request bounds on %s', (backend) => {
  // The token is cached, so that a refused request touches the database not at all.
  const fixture = useApiFixture(backend, { tokenCacheTtlMs: 60_000 });

  beforeAll(async () => {
    const { api } = fixture;
    const products = Array.from({ length: 60 }, (_, i) => ({
      external_id: `SKU-${i}`,
      name: `Product ${i}`,
      description: 'd'.repeat(1_000),
      pricelists: ['retail', 'wholesale', 'web'].map((p) => ({ pricelist_external_id: p, pricelist_name: p, price: i + 1 })),
    }));
    expect((await api.request('POST', '/api/v1/products', { body: { products } })).status).toBe(200);
    // A second revision, so that every product has history with changes.
    const renamed = products.map((p) => ({ ...p, name: `${p.name} (2)` }));
    expect((await api.request('POST', '/api/v1/products', { body: { products: renamed } })).status).toBe(200);
    const stocks = products.map((p) => ({ supplier_external_id: 'SUP-1', product_external_id: p.external_id, quantity: 5 }));
    expect((await api.request('POST', '/api/v1/stocks', { body: { stocks } })).status).toBe(200);
    const partners = [
      { external_id: 'P-0', name: 'Root' },
      ...Array.from({ length: 30 }, (_, i) => ({ external_id: `P-${i + 1}`, name: `Child ${i}`, parent_external_id: 'P-0' })),
    ];
    expect((await api.request('POST', '/api/v1/partners', { body: { partners } })).status).toBe(200);
  });

  const post = (query: string): Promise<JsonResponse> =>
    fixture.api.request('POST', '/graphql', { body: { query }, headers: GRAPHQL_RESPONSE });

  it("refuses issue 30's 2 KB query before executing it, naming the bound and the count", async () => {
    expect(Buffer.byteLength(ATTACK)).toBeGreaterThan(2_000);
    await post('{ pendingChanges { products } }'); // the token is cached from here on
    const statements = fixture.db.queryCount();
    const res = await post(ATTACK);
    expect(fixture.db.queryCount() - statements).toBe(0); // nothing ran: not even one SQL statement
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    const [error] = res.body.errors;
    expect(error.extensions).toMatchObject({ code: 'VALIDATION_FAILED', bound: 'MAX_QUERY_NODES', limit: 50_000 });
    // 15 × 500 products × (1 + 20 price items + 20 stock entries + 100 history entries × (1 + 20 changes))
    expect(error.extensions.nodes).toBe(15 * 500 * (1 + 20 + 20 + 100 * 21));
    expect(error.message).toContain('MAX_QUERY_NODES');
    expect(error.message).toContain('16,057,500');
    expect(error.extensions.details[0]).toEqual({ field: 'p0', message: 'may return up to 1,070,500 nodes' });

    // A client that asks for application/json gets it as Yoga answers validation errors: 200, errors only.
    const plain = await fixture.api.graphql(ATTACK);
    expect(plain.status).toBe(200);
    expect(plain.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });

  it('counts variables as the executor will see them', async () => {
    const query = 'query Q($n: Int) { products(limit: $n) { payload { history(limit: 100) { revision } } } }';
    const small = await fixture.api.request('POST', '/graphql', { body: { query, variables: { n: 10 } }, headers: GRAPHQL_RESPONSE });
    expect(small.status).toBe(200);
    expect(small.body.data.products.payload).toHaveLength(10);
    const large = await fixture.api.request('POST', '/graphql', { body: { query, variables: { n: 501 } }, headers: GRAPHQL_RESPONSE });
    expect(large.status).toBe(400);
    expect(large.body.errors[0].extensions.nodes).toBe(500 * 101); // clamped to 500 as the service does
  });

  it('refuses or bounds every maximal query generated from the schema, and keeps answering polls', async () => {
    const variants = maximalQueries(schema, { depth: 4, maxAliases: 15, maxTokens: 5_000 }).filter((v) =>
      selectsLists(schema, v.field, v.depth),
    );
    expect(variants.length).toBeGreaterThanOrEqual(20);
    const outcomes: Array<{ field: string; status: number; bound?: string; bytes: number }> = [];
    for (const variant of variants) {
      const res = await post(variant.query);
      const bytes = Buffer.byteLength(res.text);
      outcomes.push({ field: variant.field, status: res.status, bound: res.body?.errors?.[0]?.extensions?.bound, bytes });
      expect({ field: variant.field, answered: [200, 400, 422].includes(res.status) }).toEqual({ field: variant.field, answered: true });
      expect(bytes).toBeLessThanOrEqual(fixture.api.requestBounds.maxResponseBytes);
      if (res.status === 400) expect(res.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED' });
    }
    // The node bound is what refuses the big ones (not only the depth, alias or token limits).
    const refusedByNodes = outcomes.filter((o) => o.status === 400 && o.bound === 'MAX_QUERY_NODES').length;
    expect(refusedByNodes).toBeGreaterThanOrEqual(8);
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThanOrEqual(8);

    const poll = await fixture.api.request('GET', '/api/v1/updated-products?limit=5');
    expect(poll.status).toBe(200);
    expect(poll.body.payload).toHaveLength(5);
  });

  it('fails an answer over MAX_RESPONSE_BYTES alone, while a concurrent request succeeds', async () => {
    const bounds = fixture.api.requestBounds;
    const saved = bounds.maxResponseBytes;
    bounds.maxResponseBytes = 30_000; // 60 products of 1 KB each do not fit
    try {
      const [graphql, rest, small] = await Promise.all([
        post('{ products(limit: 500) { payload { id data } } }'),
        fixture.api.request('GET', '/api/v1/updated-products?limit=500'),
        fixture.api.request('GET', '/api/v1/updated-products?limit=2'),
      ]);
      expect(graphql.status).toBe(422);
      expect(graphql.body.data).toBeUndefined();
      expect(graphql.body.errors[0]).toMatchObject({
        message: expect.stringContaining('MAX_RESPONSE_BYTES'),
        extensions: { code: 'RESPONSE_TOO_LARGE', bound: 'MAX_RESPONSE_BYTES', limit: 30_000 },
      });
      expect(rest.status).toBe(422);
      expect(rest.body.error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', details: [{ field: 'limit' }] });
      expect(small.status).toBe(200);
      expect(small.body.payload).toHaveLength(2);
    } finally {
      bounds.maxResponseBytes = saved;
    }
    expect((await fixture.api.request('GET', '/api/v1/updated-products?limit=500')).status).toBe(200);
  });

  it('answers a REST page over MAX_QUERY_NODES with a 400 naming limit', async () => {
    const bounds = fixture.api.requestBounds;
    const saved = bounds.maxQueryNodes;
    bounds.maxQueryNodes = 100;
    try {
      const res = await fixture.api.request('GET', '/api/v1/updated-products?limit=101');
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining('MAX_QUERY_NODES'),
        details: [{ field: 'limit', message: 'may return up to 101 nodes' }],
      });
      expect((await fixture.api.request('GET', '/api/v1/updated-products?limit=100')).status).toBe(200);
    } finally {
      bounds.maxQueryNodes = saved;
    }
  });
});
