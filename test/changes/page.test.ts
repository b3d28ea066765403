import { getNamedType, type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';
import { types } from 'pg';
import { changeListPage } from '../../src/changes/page';
import { prismaShapes } from '../../src/db/prepared-query';
import type { TrackedTableName } from '../../src/changes/ledger';
import { entityOfTable } from '../../src/changes/tracked-entities';
import { schema, trackedEntities } from '../../src/modules';
import { syncPartners } from '../../src/partners/partner.service';
import { syncProducts } from '../../src/products/product.service';
import { syncSaleOrders } from '../../src/sale-orders/sale-order.service';
import { syncStocks } from '../../src/stocks/stock.service';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';

/**
 * The change lists read with one hand-written statement; what they hand to GraphQL must be
 * exactly what Prisma would have returned for the same rows, on every tracked table.
 */
const READER = { key: 'token:pages-test', channelId: null };
const camelCase = (column: string) => column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

describe.each(backends)('change list pages on %s', (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(backend);
    const ok = (r: { errors: unknown[] }) => expect(r.errors).toEqual([]);
    ok(await syncPartners(db, [{ external_id: 'S1', name: 'Supplier', type: 'B' }], 'erp_sync'));
    ok(
      await syncProducts(
        db,
        Array.from({ length: 3 }, (_, i) => ({
          external_id: `P${i}`,
          erp_id: i,
          name: `Product ${i}`,
          price: 1.5 + i,
          pricelists: [
            { pricelist_external_id: 'R', pricelist_name: 'Retail', price: 2.25, start_date: '2026-01-01', end_date: '2026-12-31' },
          ],
          purchase_orders: [
            {
              external_id: `PO${i}`,
              supplier_external_id: 'S1',
              order_date: '2026-11-01',
              lines: [{ product_external_id: `P${i}`, quantity: 2, price: 1 }],
            },
          ],
        })),
        'erp_sync',
      ),
    );
    ok(
      await syncSaleOrders(
        db,
        [
          { external_id: 'SO-in', direction: 'inbound', lines: [] },
          { external_id: 'SO-out', direction: 'outbound', lines: [] },
        ],
        'erp_sync',
      ),
    );
    ok(await syncStocks(db, [{ supplier_external_id: 'S1', product_external_id: 'P0', quantity: -3.5, purchase_price: 1.25 }]));
  });
  afterAll(() => db?.close());

  const prismaRows: Record<TrackedTableName, () => Promise<Array<{ id: number }>>> = {
    products: () => db.prisma.product.findMany({ where: { pending: true }, orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }] }),
    partners: () => db.prisma.partner.findMany({ where: { pending: true }, orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }] }),
    sale_orders: () => db.prisma.saleOrder.findMany({ where: { pending: true }, orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }] }),
    price_items: () => db.prisma.priceItem.findMany({ where: { pending: true }, orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }] }),
    stocks: () => db.prisma.stock.findMany({ where: { pending: true }, orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }] }),
    purchase_orders: () => db.prisma.purchaseOrder.findMany({ where: { pending: true }, orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }] }),
  };

  it.each(Object.keys(prismaRows) as TrackedTableName[])(
    '%s: rows in the Prisma model shape, total, and the listing remembered',
    async (table) => {
      const before = await prismaRows[table]();
      expect(before.length).toBeGreaterThan(0);
      const page = await changeListPage(db, table, READER, { limit: 500 });
      // The fields the change record shows, as Prisma reads them; not the ledger's own.
      const fields = ['id', 'revision', 'updatedAt', 'ackedRevision', ...entityOfTable(table).changeColumns.map(camelCase)];
      const shown = (rows: Array<{ id: number }>) =>
        rows.map((row) => Object.fromEntries(fields.map((f) => [f, (row as Record<string, unknown>)[f]])));
      expect(page.payload).toEqual(shown(before));
      expect(page.meta).toEqual({ total: before.length, limit: 500, offset: 0 });
      const after = (await prismaRows[table]()) as unknown as Array<{ revision: number; listedRevisions: Record<string, number> }>;
      expect(after.every((r) => r.listedRevisions[READER.key] === r.revision)).toBe(true);
      expect(after.every((r) => Object.keys(r.listedRevisions).length === 1)).toBe(true);
    },
  );

  it('pages with limit and offset, counts every pending record, and is empty past the end', async () => {
    const first = await changeListPage<{ id: number; revision: number; externalId: string }>(db, 'products', READER, { limit: 2 });
    const second = await changeListPage<{ id: number; revision: number; externalId: string }>(db, 'products', READER, {
      limit: 2,
      offset: 2,
    });
    expect([...first.payload, ...second.payload].map((p) => p.externalId)).toEqual(['P0', 'P1', 'P2']);
    expect(second.meta).toEqual({ total: 3, limit: 2, offset: 2 });
    expect(await changeListPage(db, 'products', READER, { offset: 10 })).toEqual({
      payload: [],
      meta: { total: 3, limit: 50, offset: 10 },
    });
  });

  it('filters by since and by a column value', async () => {
    const latest = await db.prisma.product.findFirstOrThrow({ orderBy: [{ updatedAt: 'desc' }] });
    expect(await changeListPage(db, 'products', READER, { since: latest.updatedAt })).toMatchObject({
      payload: [],
      meta: { total: 0 },
    });
    const inbound = await changeListPage<{ id: number; revision: number; externalId: string }>(
      db,
      'sale_orders',
      READER,
      {},
      { direction: 'inbound' },
    );
    expect(inbound.payload.map((o) => o.externalId)).toEqual(['SO-in']);
    expect(inbound.meta.total).toBe(1);
  });

  it('reads a date column as UTC midnight, as Prisma does, whatever the time zone', () => {
    // Jest cannot change the process's zone; pg's own parser would give local midnight.
    const parseDate = prismaShapes.getTypeParser(1082, 'text');
    expect(parseDate).not.toBe(types.getTypeParser(1082, 'text'));
    expect(parseDate('2026-01-01')).toEqual(new Date('2026-01-01T00:00:00Z'));
  });

  it('prepares the statement afresh when a migration changes the table under it', async () => {
    const before = await changeListPage(db, 'products', READER, { limit: 1 });
    // A column no change record shows leaves the answer as it was.
    await db.prisma.$executeRawUnsafe(`ALTER TABLE products ADD COLUMN extra_note text`);
    try {
      expect(await changeListPage(db, 'products', READER, { limit: 1 })).toEqual(before);
    } finally {
      await db.prisma.$executeRawUnsafe(`ALTER TABLE products DROP COLUMN extra_note`);
    }
    // A selected column of another type changes the statement's result type under its plan.
    await db.prisma.$executeRawUnsafe(`ALTER TABLE products ALTER COLUMN context TYPE varchar(200)`);
    try {
      // Every pooled connection that prepared the old statement must recover, not only one.
      const pages = await Promise.all(Array.from({ length: 4 }, () => changeListPage(db, 'products', READER, { limit: 1 })));
      for (const page of pages) expect(page).toEqual(before);
    } finally {
      await db.prisma.$executeRawUnsafe(`ALTER TABLE products ALTER COLUMN context TYPE text`);
    }
    expect(await changeListPage(db, 'products', READER, { limit: 1 })).toEqual(before);
  });
});

/**
 * The page selects only `changeColumns`: every field of a change list's GraphQL record type must
 * read nothing else, or it would answer null (or fail) for a field the page left out.
 */
describe('the columns a change list selects', () => {
  const readsOf = (typeName: string): Set<string> => {
    const type = schema.getType(typeName) as GraphQLObjectType;
    const reads = new Set<string>();
    const row = new Proxy({} as Record<string, unknown>, {
      get: (_target, key) => {
        if (typeof key === 'string') reads.add(key);
        return undefined;
      },
    });
    for (const field of Object.values(type.getFields())) {
      try {
        field.resolve?.(row, {}, {}, { fieldName: field.name } as GraphQLResolveInfo);
      } catch {
        // A resolver that needs a real value still read what it reads.
      }
      if (!field.resolve) reads.add(field.name);
    }
    return reads;
  };

  it.each(trackedEntities.map((e) => [e.table, e] as const))('%s: its record type reads only selected fields', (_table, entity) => {
    const page = schema.getQueryType()!.getFields()[entity.operations.list]!.type;
    const payload = (getNamedType(page) as GraphQLObjectType).getFields().payload!.type;
    const reads = readsOf(getNamedType(payload).name);
    const selected = ['id', 'revision', 'updatedAt', ...entity.changeColumns.map(camelCase)];
    expect(reads.size).toBeGreaterThan(5);
    expect([...reads].filter((field) => !selected.includes(field))).toEqual([]);
  });
});
