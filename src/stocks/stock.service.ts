import type { PrismaClient, Stock } from '../generated/prisma/client';
import { notFound } from '../errors/app-error';
import type { SyncResultShape } from '../graphql/common-types';
import type { PageShape } from '../graphql/pages';
import type { PageArgs } from '../changes/pagination';
import { CHANGE_ORDER, changeListPage, fetchPage } from '../changes/pages';
import { syncResult, validateBatch } from '../changes/tracked-service';
import type { RecordOutcome } from '../changes/tracked-sync';
import { MAX_STOCKS_PER_REQUEST, stockInput, type StockInput } from './stock.input';

/**
 * Bulk upsert built for whole stock lists (SPEC 4.3 rule 5): one INSERT … ON CONFLICT for the
 * batch. Quantity changes bump the revision and flag the entry (isQuantityChanged); price-only
 * changes update without flagging; identical entries are not touched at all.
 */
export async function syncStocks(prisma: PrismaClient, records: readonly unknown[]): Promise<SyncResultShape> {
  const { valid, errors } = validateBatch(records, stockInput, { argName: 'stocks', maxItems: MAX_STOCKS_PER_REQUEST });
  // Later entries for the same (supplier, product) win, field by field.
  const byKey = new Map<string, Partial<StockInput>>();
  for (const { value } of valid) {
    const k = `${value.supplier_external_id}\u0000${value.product_external_id}`;
    byKey.set(k, { ...byKey.get(k), ...definedOnly(value) });
  }
  const entries = [...byKey.values()].map((e) => ({
    ...e,
    has_purchase_price: e.purchase_price !== undefined,
    has_suggested_sale_price: e.suggested_sale_price !== undefined,
  }));
  const written = entries.length === 0 ? [] : await upsertStocks(prisma, JSON.stringify(entries));
  const created = written.filter((w) => w.inserted).length;
  const outcomes: RecordOutcome[] = [
    ...Array<RecordOutcome>(created).fill('created'),
    ...Array<RecordOutcome>(written.length - created).fill('updated'),
    ...Array<RecordOutcome>(valid.length - written.length).fill('unchanged'),
  ];
  return syncResult(outcomes, errors);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function upsertStocks(prisma: PrismaClient, entriesJson: string): Promise<Array<{ inserted: boolean }>> {
  const qtyChanged = 't.quantity IS DISTINCT FROM EXCLUDED.quantity';
  const anyChanged = `${qtyChanged} OR t.purchase_price IS DISTINCT FROM EXCLUDED.purchase_price
                      OR t.suggested_sale_price IS DISTINCT FROM EXCLUDED.suggested_sale_price`;
  return prisma.$queryRawUnsafe<Array<{ inserted: boolean }>>(
    `INSERT INTO stocks AS t (supplier_external_id, product_external_id, quantity, purchase_price, suggested_sale_price,
                              revision, acked_revision, field_revisions, changed_fields, is_new, pending, created_at, updated_at)
     SELECT v.supplier_external_id, v.product_external_id, v.quantity,
            CASE WHEN v.has_purchase_price THEN v.purchase_price ELSE cur.purchase_price END,
            CASE WHEN v.has_suggested_sale_price THEN v.suggested_sale_price ELSE cur.suggested_sale_price END,
            1, 0, '{"quantity":1}'::jsonb, ARRAY['quantity'], true, true, now(), now()
       FROM jsonb_to_recordset($1::jsonb) AS v(supplier_external_id text, product_external_id text, quantity double precision,
                                               purchase_price double precision, suggested_sale_price double precision,
                                               has_purchase_price boolean, has_suggested_sale_price boolean)
       LEFT JOIN stocks AS cur
         ON cur.supplier_external_id = v.supplier_external_id AND cur.product_external_id = v.product_external_id
     ON CONFLICT (supplier_external_id, product_external_id) DO UPDATE SET
        quantity = EXCLUDED.quantity,
        purchase_price = EXCLUDED.purchase_price,
        suggested_sale_price = EXCLUDED.suggested_sale_price,
        previous_quantity = CASE WHEN ${qtyChanged} THEN t.quantity ELSE t.previous_quantity END,
        revision = t.revision + (${qtyChanged})::int,
        field_revisions = CASE WHEN ${qtyChanged} THEN jsonb_build_object('quantity', t.revision + 1) ELSE t.field_revisions END,
        pending = t.pending OR ${qtyChanged},
        changed_fields = CASE WHEN t.pending OR ${qtyChanged} THEN ARRAY['quantity'] ELSE ARRAY[]::text[] END,
        updated_at = now()
      WHERE ${anyChanged}
     RETURNING (t.xmax = 0) AS inserted`,
    entriesJson,
  );
}

/** Entries whose quantity changed since their last acknowledgement (the delta query). */
export function listChangedStocks(prisma: PrismaClient, args: PageArgs): Promise<PageShape<Stock>> {
  return changeListPage(prisma, 'stocks', args, {
    find: (where, window) => prisma.stock.findMany({ where, orderBy: CHANGE_ORDER, ...window }),
    count: (where) => prisma.stock.count({ where }),
  });
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
