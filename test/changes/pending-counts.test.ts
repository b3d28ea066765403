import { changeListPage } from '../../src/changes/page';
import { compactPendingCounts, countPending } from '../../src/changes/pending-counts';
import { acknowledgeMany, acknowledgeOne } from '../../src/changes/tracked.service';
import type { TrackedTableName } from '../../src/changes/ledger';
import { acknowledgeUpdate } from '../../src/failures/failure.service';
import type { PrismaClient } from '../../src/generated/prisma/client';
import { syncPartners } from '../../src/partners/partner.service';
import { syncProducts } from '../../src/products/product.service';
import { resync } from '../../src/reconciliation/resync.service';
import { syncSaleOrders } from '../../src/sale-orders/sale-order.service';
import { syncStocks } from '../../src/stocks/stock.service';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';

/**
 * The pending counts (ADR 0030) are kept by triggers on every write: after each write path, and
 * after any mix of them at once, sum(delta) per table and scope equals count(*) WHERE pending.
 */
const READER = { key: 'token:pending-counts', channelId: null };
const TABLES: TrackedTableName[] = ['products', 'partners', 'sale_orders', 'price_items', 'stocks', 'purchase_orders'];

type Counts = Record<string, number>;

/** Pending rows per "table/scope", counted from the rows and from the counters (zeros left out). */
async function pendingState(prisma: PrismaClient): Promise<{ rows: Counts; counters: Counts }> {
  const actual = await prisma.$queryRawUnsafe<Array<{ key: string; n: number }>>(
    [
      ...TABLES.filter((t) => t !== 'sale_orders').map((t) => `SELECT '${t}/' AS key, count(*)::int AS n FROM "${t}" WHERE pending`),
      `SELECT 'sale_orders/' || direction, count(*)::int FROM sale_orders WHERE pending GROUP BY direction`,
    ].join(' UNION ALL '),
  );
  const counted = await prisma.$queryRawUnsafe<Array<{ key: string; n: number }>>(
    `SELECT table_name || '/' || scope AS key, sum(delta)::int AS n FROM pending_count_deltas GROUP BY table_name, scope`,
  );
  const nonZero = (list: Array<{ key: string; n: number }>) => Object.fromEntries(list.filter((r) => r.n !== 0).map((r) => [r.key, r.n]));
  return { rows: nonZero(actual), counters: nonZero(counted) };
}

async function expectExact(prisma: PrismaClient): Promise<Counts> {
  const { rows, counters } = await pendingState(prisma);
  expect(counters).toEqual(rows);
  return rows;
}

const product = (i: number, price = 1) => ({
  external_id: `P${i}`,
  name: `Product ${i}`,
  price,
  pricelists: [
    { pricelist_external_id: 'R', pricelist_name: 'Retail', price: price + 1, start_date: '2026-01-01', end_date: '2026-12-31' },
  ],
  purchase_orders: [
    {
      external_id: `PO${i}`,
      supplier_external_id: 'S1',
      order_date: '2026-11-01',
      lines: [{ product_external_id: `P${i}`, quantity: 1, price }],
    },
  ],
});

const ok = (r: { errors: unknown[] }) => expect(r.errors).toEqual([]);

describe.each(backends)('pending counts on %s', (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });
  afterAll(() => db?.close());

  it('stay exact through every write path', async () => {
    const { prisma } = db;
    ok(await syncPartners(db, [{ external_id: 'S1', name: 'Supplier', type: 'B' }], 'erp_sync'));
    ok(await syncProducts(db, [product(1), product(2), product(3)], 'erp_sync'));
    ok(
      await syncSaleOrders(
        db,
        [
          { external_id: 'SO1', direction: 'inbound', lines: [] },
          { external_id: 'SO2', direction: 'outbound', lines: [] },
          { external_id: 'SO3', direction: 'outbound', lines: [] },
        ],
        'erp_sync',
      ),
    );
    ok(await syncStocks(db, [{ supplier_external_id: 'S1', product_external_id: 'P1', quantity: 3 }]));
    expect(await expectExact(prisma)).toMatchObject({ 'products/': 3, 'sale_orders/inbound': 1, 'sale_orders/outbound': 2 });

    // Every list's total, with and without its filter, comes from the counters and is right.
    for (const table of TABLES) {
      const page = await changeListPage(db, table, READER, { limit: 1 });
      const [counted] = await prisma.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${table}" WHERE pending`);
      expect(page.meta.total).toBe(counted!.n);
      expect(await countPending(prisma, table)).toBe(counted!.n);
    }
    expect((await changeListPage(db, 'sale_orders', READER, { limit: 1 }, { direction: 'outbound' })).meta.total).toBe(2);
    expect((await changeListPage(db, 'sale_orders', READER, { limit: 1 }, { direction: 'inbound' })).meta.total).toBe(1);
    await expectExact(prisma);

    // Acknowledgements: by id, in a batch, and the detailed one of the failures API.
    const products = await changeListPage<{ id: number; revision: number }>(db, 'products', READER, { limit: 10 });
    const [p1, p2, p3] = products.payload;
    await acknowledgeOne(prisma, 'products', 'Product', READER, { id: p1!.id });
    expect(await countPending(prisma, 'products')).toBe(2);
    await acknowledgeMany(prisma, 'products', READER, { ids: [p2!.id] });
    await acknowledgeUpdate(prisma, 'product', { id: p3!.id }, { reader: READER, name: 'test' });
    expect(await expectExact(prisma)).not.toHaveProperty('products/');
    const orders = await changeListPage<{ id: number; revision: number }>(db, 'sale_orders', READER, { limit: 10 });
    await acknowledgeMany(prisma, 'sale_orders', READER, { items: orders.payload.map((o) => ({ id: o.id, revision: o.revision })) });
    expect(await expectExact(prisma)).not.toHaveProperty('sale_orders/outbound');

    // A change moves a sale order between directions; an identical push changes nothing.
    ok(await syncSaleOrders(db, [{ external_id: 'SO2', direction: 'inbound', lines: [] }], 'erp_sync'));
    ok(await syncProducts(db, [product(1)], 'erp_sync'));
    expect(await expectExact(prisma)).toMatchObject({ 'sale_orders/inbound': 1 });

    // A stale push (older source_updated_at) is skipped; a newer one counts again.
    ok(await syncProducts(db, [{ ...product(2, 5), source_updated_at: '2026-11-02T00:00:00Z' }], 'erp_sync'));
    const afterNewer = await expectExact(prisma);
    const stale = await syncProducts(db, [{ ...product(2, 7), source_updated_at: '2026-11-01T00:00:00Z' }], 'erp_sync');
    expect(stale.errors).toMatchObject([{ code: 'STALE' }]);
    expect(await expectExact(prisma)).toEqual(afterNewer);

    // Resync marks records pending again, per entity type and per direction.
    await resync(db, { entity_type: 'product' });
    await resync(db, { entity_type: 'sale_order', direction: 'outbound' });
    expect(await expectExact(prisma)).toMatchObject({ 'products/': 3, 'sale_orders/outbound': 1 });

    // Deletes and TRUNCATE (no API does either today; an operator might).
    await prisma.$executeRawUnsafe(`DELETE FROM stocks`);
    await prisma.$executeRawUnsafe(`DELETE FROM sale_orders WHERE external_id = 'SO3'`);
    await expectExact(prisma);
    await prisma.$executeRawUnsafe(`TRUNCATE price_items`);
    expect(await expectExact(prisma)).not.toHaveProperty('price_items/');

    // Compaction keeps the totals and leaves one row per table and scope.
    const before = await pendingState(prisma);
    expect(await compactPendingCounts(prisma)).toBeGreaterThan(0);
    expect(await pendingState(prisma)).toEqual(before);
    const [compacted] = await prisma.$queryRawUnsafe<Array<{ rows: number; keys: number }>>(
      `SELECT count(*)::int AS rows, count(DISTINCT (table_name, scope))::int AS keys FROM pending_count_deltas`,
    );
    expect(compacted!.rows).toBe(compacted!.keys);
    expect(await compactPendingCounts(prisma)).toBe(0); // nothing to fold: nothing written
  });

  it('a rolled back push (dry run) leaves the counts as they were', async () => {
    const { prisma } = db;
    const deltas = () => prisma.$queryRawUnsafe<unknown[]>(`SELECT * FROM pending_count_deltas ORDER BY id`);
    const before = { state: await expectExact(prisma), deltas: await deltas() };
    const result = await syncProducts(db, [product(50), product(1, 99)], 'erp_sync', true);
    ok(result);
    expect(result.created).toBe(1);
    ok(await syncStocks(db, [{ supplier_external_id: 'S1', product_external_id: 'P1', quantity: 8 }], true));
    expect({ state: await expectExact(prisma), deltas: await deltas() }).toEqual(before);
  });

  it('stay exact under concurrent pushes, polls, acknowledgements, a resync and compaction', async () => {
    const { prisma } = db;
    const readers = ['token:a', 'token:b', 'token:c'].map((key) => ({ key, channelId: null }));
    // The rows the pushes contend for exist first (concurrent inserts of one new external id are
    // retried a few times by the push; contention on updates is what this test is about), and each
    // round also creates rows of its own.
    ok(
      await syncProducts(
        db,
        Array.from({ length: 60 }, (_, i) => product(100 + i)),
        'erp_sync',
      ),
    );
    ok(
      await syncSaleOrders(
        db,
        Array.from({ length: 15 }, (_, i) => ({ external_id: `SOC${i}`, direction: 'inbound', lines: [] })),
        'erp_sync',
      ),
    );
    let stop = false;
    const compacting = (async () => {
      let runs = 0;
      while (!stop || runs === 0) {
        await compactPendingCounts(prisma);
        runs++;
      }
      return runs;
    })();
    const push = async (round: number) => {
      // Overlapping external ids: pushes contend for the same rows, and half the prices change.
      const batch = [
        ...Array.from({ length: 40 }, (_, i) => product(100 + ((i * 7 + round * 13) % 60), (i + round) % 2)),
        ...Array.from({ length: 5 }, (_, i) => product(1000 + round * 10 + i)),
      ];
      ok(await syncProducts(db, batch, 'erp_sync'));
      ok(
        await syncSaleOrders(
          db,
          Array.from({ length: 10 }, (_, i) => ({
            external_id: `SOC${(i + round) % 15}`,
            direction: (i + round) % 3 === 0 ? 'inbound' : 'outbound',
            lines: [{ product_external_id: 'P1', quantity: round }],
          })),
          'erp_sync',
        ),
      );
    };
    const pollAndAck = async (reader: { key: string; channelId: null }, round: number) => {
      for (const table of ['products', 'sale_orders', 'price_items'] as const) {
        const page = await changeListPage<{ id: number; revision: number }>(db, table, reader, { limit: 25, offset: round % 2 });
        expect(page.meta.total).toBeGreaterThanOrEqual(page.payload.length);
        if (page.payload.length === 0) continue;
        if (round % 2 === 0) await acknowledgeMany(prisma, table, reader, { ids: page.payload.map((r) => r.id) });
        else await acknowledgeMany(prisma, table, reader, { items: page.payload.map((r) => ({ id: r.id, revision: r.revision })) });
      }
    };
    try {
      const work: Array<Promise<unknown>> = [];
      for (let round = 0; round < 6; round++) {
        work.push(push(round));
        for (const reader of readers) work.push(pollAndAck(reader, round));
        if (round === 3) work.push(resync(db, { entity_type: 'product' }), resync(db, { entity_type: 'sale_order', direction: 'inbound' }));
      }
      await Promise.all(work);
    } finally {
      stop = true;
    }
    expect(await compacting).toBeGreaterThan(0);
    const state = await expectExact(prisma);
    expect(state['products/']).toBeGreaterThan(0);
    await compactPendingCounts(prisma);
    expect(await expectExact(prisma)).toEqual(state);
  }, 120_000);
});
