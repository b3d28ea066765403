import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { printedSchema } from '../../src/modules';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';
import { startTestServer, useApiFixture, type TestServer } from '../support/http';

it('schema.graphql is the printed Pothos schema (run `npm run schema:print` after a schema change)', () => {
  const committed = readFileSync(path.join(__dirname, '..', '..', 'schema.graphql'), 'utf8');
  expect(committed).toBe(printedSchema());
});

describe.each(backends)('GraphQL at /graphql on %s', (backend) => {
  const ctx = useApiFixture(backend);

  beforeAll(async () => {
    await ctx.api.graphql(
      `mutation { syncProducts(products: [
        {external_id: "G1", name: "one", price: 1},
        {external_id: "G2", name: "two", price: 2},
        {external_id: "G3", name: "three"}
      ]) { created } }`,
    );
  });
  it('runs the same sync mutation the REST route runs, with per-record errors', async () => {
    const res = await ctx.api.graphql(
      'mutation($p: [JSON]!) { syncProducts(products: $p, context: "gql") { success processed created updated errors { index external_id field message } } }',
      {
        p: [
          { external_id: 'G9', price: 9 },
          { external_id: 'G10', price: 'free' },
        ],
      },
    );
    expect(res.body.data.syncProducts).toEqual({
      success: false,
      processed: 1,
      created: 1,
      updated: 0,
      errors: [{ index: 1, external_id: 'G10', field: 'products[1].price', message: expect.any(String) }],
    });
  });

  it('serves the change list with the envelope of the REST route', async () => {
    const res = await ctx.api.graphql(
      '{ updatedProducts(limit: 2) { payload { externalId isNew changedFields data } meta { total limit offset } } }',
    );
    expect(res.body.data.updatedProducts.meta).toEqual({ total: 4, limit: 2, offset: 0 });
    expect(res.body.data.updatedProducts.payload[0]).toEqual({
      externalId: 'G1',
      isNew: true,
      changedFields: ['name', 'price'],
      data: { name: 'one', price: 1 },
    });
  });

  it('gives dashboards products with filters, one product by id or external id, and pending counts', async () => {
    const one = await ctx.api.graphql('{ product(externalId: "G2") { id externalId pending revision data } }');
    expect(one.body.data.product).toMatchObject({ externalId: 'G2', pending: true, revision: 1, data: { name: 'two', price: 2 } });
    const byId = await ctx.api.graphql('query($id: Int) { product(id: $id) { externalId } }', { id: one.body.data.product.id });
    expect(byId.body.data.product.externalId).toBe('G2');
    expect((await ctx.api.graphql('{ product(externalId: "nope") { id } }')).body.data.product).toBeNull();

    await ctx.api.graphql('mutation($id: Int!) { acknowledgeProduct(id: $id) { success } }', { id: one.body.data.product.id });
    const pendingOnly = await ctx.api.graphql('{ products(filter: {pending: true}) { payload { externalId } meta { total } } }');
    expect(pendingOnly.body.data.products.meta.total).toBe(3);
    expect(pendingOnly.body.data.products.payload.map((p: { externalId: string }) => p.externalId)).not.toContain('G2');
    expect((await ctx.api.graphql('{ pendingChanges { products } }')).body.data.pendingChanges.products).toBe(3);
  });

  it('carries the REST error codes in extensions.code', async () => {
    const notFound = await ctx.api.graphql('mutation { acknowledgeProduct(id: 987654) { success } }');
    expect(notFound.body.errors[0].extensions.code).toBe('NOT_FOUND');

    const badVariable = await ctx.api.graphql('query($l: Int) { updatedProducts(limit: $l) { meta { total } } }', { l: 'abc' });
    expect(badVariable.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');

    const badLimit = await ctx.api.graphql('{ updatedProducts(limit: -1) { meta { total } } }');
    expect(badLimit.body.errors[0].extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'limit', message: expect.any(String) }],
    });

    const unknownField = await ctx.api.graphql('{ nothing }');
    expect(unknownField.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');

    const tooMany = await ctx.api.graphql('mutation($ids: [Int!]!) { acknowledgeProducts(ids: $ids) { acknowledged } }', {
      ids: Array.from({ length: 10_001 }, (_, i) => i),
    });
    expect(tooMany.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('unexpected errors', () => {
  let db: TestDatabase;
  let api: TestServer;
  const logLines: string[] = [];

  beforeAll(async () => {
    db = await openTestDatabase('embedded');
    // Fault injection at the database edge: every query on the pool (the change lists read with
    // one prepared statement there) fails as a broken disk would.
    const sql = new Proxy(db.sql, {
      get(target, prop) {
        if (prop === 'query') return () => Promise.reject(new Error('disk on fire at /var/lib/secret'));
        return Reflect.get(target, prop);
      },
    });
    const sink = new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    api = await startTestServer({ ...db, sql }, { logger: pino({ level: 'error' }, sink) });
  });
  afterAll(async () => {
    await api?.close();
    await db?.close();
  });

  it('are a masked 500 in REST and GraphQL, logged with the request id', async () => {
    const rest = await api.request('GET', '/api/v1/updated-products');
    expect(rest.status).toBe(500);
    expect(rest.body.error).toEqual({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error', requestId: expect.any(String) });
    expect(rest.text).not.toContain('disk on fire');
    const logged = logLines.find((line) => line.includes(rest.body.error.requestId) && line.includes('disk on fire'));
    expect(logged).toBeDefined();

    const gql = await api.graphql('{ updatedProducts { meta { total } } }');
    expect(gql.body.errors[0]).toMatchObject({ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(gql.text).not.toContain('disk on fire');
  });
});
