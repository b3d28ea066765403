import type { PrismaClient, Stock } from '../generated/prisma/client';
import { notFound } from '../errors/app-error';
import type { PageShape, SyncResultShape } from '../changes/results';
import type { PageArgs } from '../changes/pagination';
import { changeListPage, fetchPage } from '../changes/pages';
import { syncResult, validateBatch } from '../changes/tracked-service';
import { inTransaction, type RecordOutcome } from '../changes/tracked-sync';
import type { SqlRunner } from '../changes/tracked-table';
import { takeChangeClock } from '../changes/change-clock';
import { MAX_STOCKS_PER_REQUEST, stockInput, type StockInput } from './stock.input';

/**
 * Bulk upsert built for whole stock lists (SPEC 4.3 rule 5): one INSERT … ON CONFLICT per shape of
 * entry (which prices were sent; a whole list has one shape). Quantity changes bump the revision
 * and flag the entry (isQuantityChanged); price-only changes update without flagging; identical
 * entries are not touched at all.
 */
export async function syncStocks(prisma: PrismaClient, records: readonly unknown[]): Promise<SyncResultShape> {
  const { valid, errors } = validateBatch(records, stockInput, { argName: 'stocks', maxItems: MAX_STOCKS_PER_REQUEST });
  // Later entries for the same (supplier, product) win, field by field.
  const byKey = new Map<string, StockInput>();
  for (const { value } of valid) {
    const k = `${value.supplier_external_id}\u0000${value.product_external_id}`;
    const earlier = byKey.get(k);
    byKey.set(k, earlier ? { ...earlier, ...definedOnly(value) } : value);
  }
  const byShape = new Map<string, { shape: Shape; entries: StockInput[] }>();
  // In key order, so that two lists written at once lock their common rows in the same order.
  for (const key of [...byKey.keys()].sort()) {
    const entry = byKey.get(key)!;
    const shape = shapeOf(entry);
    const group = byShape.get(shape.key);
    if (group) group.entries.push(entry);
    else byShape.set(shape.key, { shape, entries: [entry] });
  }
  let created = 0;
  let written = 0;
  // One transaction: a list is applied whole or not at all, even when it takes several statements.
  if (byShape.size > 0) {
    await inTransaction(prisma, async (tx) => {
      const stamp = await takeChangeClock(tx, 'stocks');
      for (const { shape, entries } of byShape.values()) {
        const counts = await upsertStocks(tx, shape, entries, stamp);
        created += counts.created;
        written += counts.written;
      }
    });
  }
  const outcomes: RecordOutcome[] = [
    ...Array<RecordOutcome>(created).fill('created'),
    ...Array<RecordOutcome>(written - created).fill('updated'),
    ...Array<RecordOutcome>(valid.length - written).fill('unchanged'),
  ];
  return syncResult(outcomes, errors);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Which optional prices an entry carries: a price left out keeps its stored value. */
type Shape = { key: string; purchasePrice: boolean; suggestedSalePrice: boolean };

function shapeOf(entry: StockInput): Shape {
  const purchasePrice = entry.purchase_price !== undefined;
  const suggestedSalePrice = entry.suggested_sale_price !== undefined;
  return { key: `${purchasePrice}/${suggestedSalePrice}`, purchasePrice, suggestedSalePrice };
}

async function upsertStocks(
  tx: SqlRunner,
  shape: Shape,
  entries: StockInput[],
  stamp: Date,
): Promise<{ created: number; written: number }> {
  const qtyChanged = 't.quantity IS DISTINCT FROM EXCLUDED.quantity';
  // A price that was not sent keeps the stored one (and is NULL in a new entry).
  const prices = [
    ['purchase_price', shape.purchasePrice],
    ['suggested_sale_price', shape.suggestedSalePrice],
  ] as const;
  const anyChanged = [qtyChanged, ...prices.filter(([, sent]) => sent).map(([col]) => `t.${col} IS DISTINCT FROM EXCLUDED.${col}`)].join(
    ' OR ',
  );
  const rows = await tx.$queryRawUnsafe<Array<{ created: number; written: number }>>(
    `WITH written AS (
       INSERT INTO stocks AS t (supplier_external_id, product_external_id, quantity, purchase_price, suggested_sale_price,
                                revision, acked_revision, field_revisions, changed_fields, is_new, pending, created_at, updated_at)
       SELECT v.supplier_external_id, v.product_external_id, v.quantity, v.purchase_price, v.suggested_sale_price,
              1, 0, '{"quantity":1}'::jsonb, ARRAY['quantity'], true, true, now(), $2::timestamptz
         FROM jsonb_to_recordset($1::jsonb) AS v(supplier_external_id text, product_external_id text, quantity double precision,
                                                 purchase_price double precision, suggested_sale_price double precision)
       ON CONFLICT (supplier_external_id, product_external_id) DO UPDATE SET
          quantity = EXCLUDED.quantity,
          ${prices.map(([col, sent]) => `${col} = ${sent ? 'EXCLUDED' : 't'}.${col}`).join(',\n          ')},
          previous_quantity = CASE WHEN ${qtyChanged} THEN t.quantity ELSE t.previous_quantity END,
          revision = t.revision + (${qtyChanged})::int,
          field_revisions = CASE WHEN ${qtyChanged} THEN jsonb_build_object('quantity', t.revision + 1) ELSE t.field_revisions END,
          pending = t.pending OR ${qtyChanged},
          changed_fields = CASE WHEN t.pending OR ${qtyChanged} THEN ARRAY['quantity'] ELSE ARRAY[]::text[] END,
          updated_at = $2::timestamptz
        WHERE ${anyChanged}
       RETURNING (t.xmax = 0) AS inserted
     )
     SELECT (count(*) FILTER (WHERE inserted))::int AS created, count(*)::int AS written FROM written`,
    JSON.stringify(entries),
    stamp,
  );
  return rows[0] ?? { created: 0, written: 0 };
}

/** Entries whose quantity changed since their last acknowledgement (the delta query). */
export function listChangedStocks(prisma: PrismaClient, reader: string, args: PageArgs): Promise<PageShape<Stock>> {
  return changeListPage(prisma, 'stocks', reader, args);
}

/** All stock of one supplier, or of one product across suppliers. An unknown id is an empty page. */
export function listStocks(
  prisma: PrismaClient,
  filter: { supplierExternalId: string } | { productExternalId: string },
  args: PageArgs,
): Promise<PageShape<Stock>> {
  const orderBy = 'supplierExternalId' in filter ? { productExternalId: 'asc' as const } : { supplierExternalId: 'asc' as const };
  return fetchPage(args, filter, {
    find: (where, window) => prisma.stock.findMany({ where, orderBy, ...window }),
    count: (where) => prisma.stock.count({ where }),
  });
}

export async function lookupStock(prisma: PrismaClient, supplierId: string, productId: string): Promise<Stock> {
  const stock = await prisma.stock.findUnique({
    where: { supplierExternalId_productExternalId: { supplierExternalId: supplierId, productExternalId: productId } },
  });
  if (!stock) throw notFound('Stock entry', `${supplierId}/${productId}`);
  return stock;
}
