import { Client } from 'pg';
import { createToken } from '../../src/auth/token.service';
import { backends } from '../support/database';
import { useApiFixture } from '../support/http';
import { waitFor } from '../support/wait-for';

/**
 * The change feed's guarantees, tried as two webshop clients and an ERP would (docs/api.md, "What
 * the change feed guarantees"): an acknowledgement covers only what its client was shown, a stale
 * revision covers nothing newer, and `since` paging never skips a later commit.
 */
describe.each(backends)('change feed guarantees on %s', (backend) => {
  const ctx = useApiFixture(backend);
  let other: string;

  beforeAll(async () => {
    other = (await createToken(ctx.db.prisma, `monitor-${backend}`)).token;
  });
  beforeEach(async () => {
    await ctx.db.prisma.product.deleteMany();
  });

  const push = async (products: Array<Record<string, unknown>>) => {
    const res = await ctx.api.request('POST', '/api/v1/products', { body: { products } });
    expect(res.body).toMatchObject({ success: true });
  };
  const list = async (token?: string, query = '?limit=500') =>
    (await ctx.api.request('GET', `/api/v1/updated-products${query}`, token ? { token } : {})).body as {
      payload: Array<{
        id: number;
        externalId: string;
        revision: number;
        data: Record<string, unknown>;
        changedFields: string[];
        updatedAt: string;
      }>;
      meta: { total: number };
    };
  const stored = (externalId: string) => ctx.db.prisma.product.findUniqueOrThrow({ where: { externalId } });

  it("never lets one client's listing widen another client's acknowledgement by id", async () => {
    await push([{ external_id: 'X', price: 1 }]);
    const [shownToA] = (await list()).payload;
    expect(shownToA).toMatchObject({ revision: 1, data: { price: 1 } });
    await push([{ external_id: 'X', price: 99 }]);
    const [shownToB] = (await list(other)).payload;
    expect(shownToB).toMatchObject({ revision: 2, data: { price: 99 } });

    const ack = await ctx.api.request('DELETE', `/api/v1/updated-products/${shownToA!.id}`);
    expect(ack.body).toEqual({ success: true, acknowledged: 1 });
    // A processed price 1 only: price 99 is still owed to the webshop.
    expect(await stored('X')).toMatchObject({ pending: true, ackedRevision: 1, changedFields: ['price'] });
    expect((await list()).payload).toEqual([expect.objectContaining({ id: shownToA!.id, revision: 2, data: { price: 99 } })]);

    await ctx.api.request('POST', '/api/v1/updated-products/batch-delete', { token: other, body: { ids: [shownToB!.id] } });
    expect(await stored('X')).toMatchObject({ pending: false, ackedRevision: 2, changedFields: [] });
  });

  it('covers a named revision and nothing newer, and refuses a revision never reached', async () => {
    await push([{ external_id: 'X', name: 'Cup', price: 1 }]);
    const [first] = (await list()).payload;
    await push([{ external_id: 'X', price: 2 }]);

    const stale = await ctx.api.request('POST', '/api/v1/updated-products/batch-delete', {
      body: { items: [{ id: first!.id, revision: first!.revision }] },
    });
    expect(stale.body).toEqual({ success: true, acknowledged: 1, notFound: [], notListed: [] });
    expect(await stored('X')).toMatchObject({ pending: true, isNew: false, ackedRevision: 1, changedFields: ['price'] });

    const future = await ctx.api.request('DELETE', `/api/v1/updated-products/${first!.id}?revision=3`);
    expect(future.status).toBe(400);
    expect(future.body.error.details).toEqual([{ field: 'revision', message: expect.stringContaining('revision 2') }]);
    const futureBatch = await ctx.api.request('POST', '/api/v1/updated-products/batch-delete', {
      body: {
        items: [
          { id: first!.id, revision: 2 },
          { id: first!.id + 1000, revision: 1 },
          { id: first!.id, revision: 9 },
        ],
      },
    });
    expect(futureBatch.status).toBe(400);
    expect(futureBatch.body.error.details).toEqual([{ field: 'items[2].revision', message: expect.any(String) }]);
    expect(await stored('X')).toMatchObject({ pending: true, ackedRevision: 1 });

    const current = await ctx.api.request('DELETE', `/api/v1/updated-products/${first!.id}?revision=2`);
    expect(current.body).toEqual({ success: true, acknowledged: 1 });
    expect(await stored('X')).toMatchObject({ pending: false, ackedRevision: 2 });
    // Idempotent: the same acknowledgement again changes nothing and still succeeds.
    expect((await ctx.api.request('DELETE', `/api/v1/updated-products/${first!.id}?revision=1`)).status).toBe(200);
    expect(await stored('X')).toMatchObject({ pending: false, ackedRevision: 2 });
  });

  it('acknowledges nothing by id for a client that was never shown the record', async () => {
    await push([
      { external_id: 'X', price: 1 },
      { external_id: 'Y', price: 1 },
    ]);
    const [x, y] = (await list(other)).payload;

    const single = await ctx.api.request('DELETE', `/api/v1/updated-products/${x!.id}`);
    expect(single.status).toBe(409);
    expect(single.body.error).toMatchObject({ code: 'CONFLICT', details: [{ field: 'revision', message: expect.any(String) }] });
    const batch = await ctx.api.request('POST', '/api/v1/updated-products/batch-delete', { body: { ids: [x!.id, y!.id] } });
    expect(batch.body).toEqual({ success: true, acknowledged: 0, notFound: [], notListed: [x!.id, y!.id] });
    const detailed = await ctx.api.request('POST', `/api/v1/updates/product/${x!.id}/ack`, { body: {} });
    expect(detailed.status).toBe(409);
    expect((await list(other)).meta.total).toBe(2);

    // A dashboard query shows the record but is no listing: it widens nothing either.
    await ctx.api.graphql('{ products { payload { id revision } } }');
    expect((await ctx.api.request('DELETE', `/api/v1/updated-products/${x!.id}`)).status).toBe(409);
    // The revision, read anywhere, is enough to acknowledge exactly that version.
    const detailedWithRevision = await ctx.api.request('POST', `/api/v1/updates/product/${x!.id}/ack`, { body: { revision: 1 } });
    expect(detailedWithRevision.body).toMatchObject({ success: true, acknowledged: 1 });
    expect(await stored('X')).toMatchObject({ pending: false });
  });

  it('refuses after_id without since', async () => {
    const res = await ctx.api.request('GET', '/api/v1/updated-products?after_id=3');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'after_id', message: 'Only with since' }]);
  });

  it('stamps pushes strictly later than every earlier commit, and keyset-pages through one push', async () => {
    await push(Array.from({ length: 30 }, (_, i) => ({ external_id: `A-${i}`, price: i })));
    await push([{ external_id: 'B', price: 1 }]);
    const all = (await list()).payload;
    const stampOf = (id: string) => all.find((r) => r.externalId === id)!.updatedAt;
    expect(new Set(all.filter((r) => r.externalId.startsWith('A-')).map((r) => r.updatedAt)).size).toBe(1);
    expect(stampOf('B') > stampOf('A-0')).toBe(true);
    // A page of 10 ends inside the first push: since alone would skip the rest of it, after_id does not.
    const first = (await list(undefined, '?limit=10')).payload;
    const last = first.at(-1)!;
    const rest = (await list(undefined, `?limit=500&since=${encodeURIComponent(last.updatedAt)}&after_id=${last.id}`)).payload;
    expect([...first, ...rest].map((r) => r.externalId).sort()).toEqual(all.map((r) => r.externalId).sort());
  });

  // Two pushes committing out of order need two transactions at once: PGlite runs one at a time.
  const concurrently = backend === 'postgresql' ? it : undefined;
  concurrently?.('pages with since past a short batch without missing a long batch that began first and commits last', async () => {
    await push([{ external_id: 'L-0', price: 0 }]);
    // Hold a row of the long batch so that it begins (and, with now(), would be stamped) first but commits last.
    const blocker = new Client({ connectionString: ctx.db.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM products WHERE external_id = 'L-0' FOR UPDATE`);
      const long = push(Array.from({ length: 2000 }, (_, i) => ({ external_id: `L-${i}`, price: i + 1 })));
      await waitFor(
        async () =>
          (await blocker.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`))
            .rowCount! > 0,
        60_000,
        'the long push waiting on the lock',
      );
      await push([{ external_id: 'S', price: 1 }]);

      // The documented keyset paging: since and after_id from the last record of each page.
      const seen = new Set<string>();
      let cursor = '';
      const pageThrough = async () => {
        for (;;) {
          const page = await list(undefined, `?limit=500${cursor}`);
          if (page.payload.length === 0) return;
          for (const record of page.payload) seen.add(record.externalId);
          const last = page.payload.at(-1)!;
          cursor = `&since=${encodeURIComponent(last.updatedAt)}&after_id=${last.id}`;
        }
      };
      await pageThrough();
      expect(seen).toEqual(new Set(['L-0', 'S']));

      await blocker.query('COMMIT');
      await long;
      await pageThrough();
      expect(seen.size).toBe(2001);
      // The long push's records share one updatedAt, later than the short push's.
      const stamps = new Set((await list(undefined, '?limit=500&offset=0')).payload.map((r) => r.updatedAt));
      expect(stamps.size).toBe(2);
    } finally {
      await blocker.end();
    }
  });
});
