import type { FeedListing } from '../changes/ledger';
import type { PriceItem, PrismaClient } from '../generated/prisma/client';
import { notFound } from '../errors/app-error';
import type { PageShape } from '../changes/results';
import { changeListPage, fetchPage, resolvePage, type ChangeListSource, type PageArgs } from '../changes/page';
import type { SqlRunner } from '../changes/ledger';
import { takeChangeClock } from '../changes/change-clock';
import type { PushedBy } from '../changes/history-writes';
import { HISTORY_COLUMNS, pendingFieldsSql } from '../changes/sql/fragments';
import { column, join, sql, trackedTable, type Sql } from '../changes/sql/sql';
import type { PriceItemInput } from './pricelist.input';
import { priceItemEntity } from './price-item.entity';

const TRACKED = ['price', 'start_date', 'end_date'] as const;

/**
 * Upserts the price items of a product batch in one statement (SPEC 4.3 rule 1): an item is
 * flagged only when its price or dates change; previous_price keeps the price before the change.
 * A pricelist rename alone updates the name without flagging. Later entries for the same
 * (pricelist, product) win. Each item whose revision moved gets its history row (ADR 0031) in the
 * same statement: the CTE `old` reads the rows as they were before it (one snapshot for the whole
 * statement), and the change clock taken first serialises price-item writers, so that is what the
 * upsert changes.
 */
export async function upsertPriceItems(
  tx: SqlRunner,
  items: ReadonlyArray<PriceItemInput & { product_external_id: string }>,
  pushedBy: PushedBy,
): Promise<void> {
  if (items.length === 0) return;
  const byKey = new Map(items.map((i) => [`${i.pricelist_external_id}\u0000${i.product_external_id}`, i]));
  const changed = (col: string) => sql`t.${column(col)} IS DISTINCT FROM EXCLUDED.${column(col)}`;
  const anyChange = join(TRACKED.map(changed), ' OR ');
  const stamp = await takeChangeClock(tx, 'price_items');
  const bump = (col: string) => sql`CASE WHEN ${changed(col)} THEN jsonb_build_object(${col}::text, t.revision + 1) ELSE '{}'::jsonb END`;
  // {col: value} of the tracked columns that differ from `old` (all of them for a new item).
  const changedValues = (from: Sql) =>
    join(
      TRACKED.map(
        (col) =>
          sql`CASE WHEN o.id IS NULL OR o.${column(col)} IS DISTINCT FROM u.${column(col)} THEN jsonb_build_object(${col}::text, ${from}.${column(col)}) ELSE '{}'::jsonb END`,
      ),
      ' || ',
    );
  const payload = JSON.stringify(
    [...byKey.values()].map((i) => ({ ...i, start_date: i.start_date ?? null, end_date: i.end_date ?? null })),
  );
  const written = await tx.$queryRaw<Array<{ id: number }>>(sql`
    WITH v AS (
       SELECT * FROM jsonb_to_recordset(${payload}::jsonb) AS v(pricelist_external_id text, pricelist_name text, product_external_id text,
                                                        price double precision, start_date date, end_date date)
     ), old AS (
       SELECT t.id, t.revision, t.price, t.start_date, t.end_date
         FROM ${trackedTable('price_items')} AS t JOIN v USING (pricelist_external_id, product_external_id)
     ), upserted AS (
       INSERT INTO ${trackedTable('price_items')} AS t (pricelist_external_id, pricelist_name, product_external_id, price, start_date, end_date,
                                     revision, acked_revision, field_revisions, changed_fields, is_new, pending, created_at, updated_at)
       SELECT v.pricelist_external_id, v.pricelist_name, v.product_external_id, v.price, v.start_date, v.end_date,
              1, 0, '{"price":1,"start_date":1,"end_date":1}'::jsonb, ARRAY['end_date','price','start_date'], true, true, now(), ${stamp}::timestamptz
         FROM v
       ON CONFLICT (pricelist_external_id, product_external_id) DO UPDATE SET
          pricelist_name = EXCLUDED.pricelist_name,
          price = EXCLUDED.price,
          start_date = EXCLUDED.start_date,
          end_date = EXCLUDED.end_date,
          previous_price = CASE WHEN ${changed('price')} THEN t.price ELSE t.previous_price END,
          field_revisions = t.field_revisions || ${join(TRACKED.map(bump), ' || ')},
          revision = CASE WHEN ${anyChange} THEN t.revision + 1 ELSE t.revision END,
          pending = t.pending OR ${anyChange},
          updated_at = CASE WHEN ${anyChange} THEN ${stamp}::timestamptz ELSE t.updated_at END
        WHERE ${anyChange} OR ${changed('pricelist_name')}
       RETURNING t.id, t.revision, t.price, t.start_date, t.end_date
     ), history AS (
       INSERT INTO change_history ${HISTORY_COLUMNS}
       SELECT ${priceItemEntity.entityType}::text, u.id, u.revision, ${pushedBy}, ${stamp}::timestamptz,
              CASE WHEN o.id IS NULL THEN NULL ELSE ${changedValues(O)} END, ${changedValues(U)}
         FROM upserted AS u LEFT JOIN old AS o ON o.id = u.id
        WHERE o.id IS NULL OR u.revision > o.revision
     )
     SELECT id FROM upserted`);
  if (written.length === 0) return;
  // changed_fields derives from the field_revisions just written, hence a second statement.
  await tx.$executeRaw(sql`
    UPDATE ${trackedTable('price_items')} SET changed_fields = ${pendingFieldsSql(sql`field_revisions`, sql`acked_revision`)}
      WHERE id IN (SELECT (jsonb_array_elements_text(${JSON.stringify(written.map((w) => w.id))}::jsonb))::int)`);
}

/** The aliases of the rows before (`old`) and after (`upserted`) the upsert, in its history CTE. */
const O = sql`o`;
const U = sql`u`;

/** Price items whose price or dates changed, oldest change first; remembered for the ack. */
export function listUpdatedPriceItems(db: ChangeListSource, reader: FeedListing, args: PageArgs): Promise<PageShape<PriceItem>> {
  return changeListPage(db, 'price_items', reader, args);
}

export type PricelistSummary = { id: string; name: string; itemCount: number };

/** Distinct pricelists with their latest name and number of items, ordered by id. */
export async function listPricelists(prisma: PrismaClient, args: PageArgs): Promise<PageShape<PricelistSummary>> {
  const page = resolvePage(args);
  const [rows, counted] = await Promise.all([
    prisma.$queryRaw<Array<{ id: string; name: string; item_count: number }>>`
      SELECT pricelist_external_id AS id,
              (array_agg(pricelist_name ORDER BY updated_at DESC, id DESC))[1] AS name,
              count(*)::int AS item_count
         FROM price_items GROUP BY pricelist_external_id ORDER BY pricelist_external_id
        LIMIT ${page.limit}::int OFFSET ${page.offset}::int`,
    prisma.$queryRaw<Array<{ n: number }>>`SELECT count(DISTINCT pricelist_external_id)::int AS n FROM price_items`,
  ]);
  return {
    payload: rows.map((r) => ({ id: r.id, name: r.name, itemCount: r.item_count })),
    meta: { total: counted[0]?.n ?? 0, limit: page.limit, offset: page.offset },
  };
}

/** Every item of one pricelist (full sync), by id; 404 when no item has that pricelist id. */
export async function listPricelistItems(prisma: PrismaClient, pricelistId: string, args: PageArgs): Promise<PageShape<PriceItem>> {
  const page = await fetchPage(
    args,
    { pricelistExternalId: pricelistId },
    {
      find: (where, window) => prisma.priceItem.findMany({ where, orderBy: { id: 'asc' }, ...window }),
      count: (where) => prisma.priceItem.count({ where }),
    },
  );
  if (page.meta.total === 0) throw notFound('Pricelist', pricelistId);
  return page;
}
