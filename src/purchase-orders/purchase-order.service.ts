import type { PrismaClient, PurchaseOrder } from '../generated/prisma/client';
import type { PageShape, SyncResultShape } from '../changes/results';
import type { PageArgs } from '../changes/pagination';
import { RECENT_ORDER, changeListPage, fetchPage } from '../changes/pages';
import { syncResult, validateBatch } from '../changes/tracked-service';
import { inTransaction, upsertTracked, type RecordOutcome, type TrackedTableSpec } from '../changes/tracked-sync';
import type { SqlRunner } from '../changes/tracked-table';
import { MAX_PURCHASE_ORDERS_PER_REQUEST, purchaseOrderInput, type PurchaseOrderInput } from './purchase-order.input';

const purchaseOrderTable: TrackedTableSpec = {
  table: 'purchase_orders',
  columns: [
    { name: 'erp_id', sqlType: 'int' },
    { name: 'supplier_external_id', sqlType: 'text' },
  ],
};

/**
 * The one place purchase orders are written, whether pushed directly or extracted from a
 * product sync (which calls it inside its own transaction). A change to any line counts as
 * `lines`; the line records are rewritten only when the lines changed.
 */
export async function upsertPurchaseOrders(
  tx: SqlRunner,
  orders: readonly PurchaseOrderInput[],
  context: string,
): Promise<RecordOutcome[]> {
  const { outcomes, written } = await upsertTracked(
    tx,
    purchaseOrderTable,
    orders.map(({ external_id, erp_id, supplier_external_id, ...fields }) => ({
      externalId: external_id,
      columns: { erp_id, supplier_external_id },
      fields,
    })),
    context,
  );
  const relined = written.filter((w) => w.changed.has('lines'));
  if (relined.length > 0) {
    await tx.$executeRawUnsafe(
      `DELETE FROM purchase_order_lines WHERE purchase_order_id IN (SELECT (jsonb_array_elements_text($1::jsonb))::int)`,
      JSON.stringify(relined.map((w) => w.id)),
    );
    const lines = relined.flatMap((w) =>
      (w.data.lines as PurchaseOrderInput['lines']).map((line, position) => ({ purchase_order_id: w.id, position, ...line })),
    );
    if (lines.length > 0) {
      await tx.$executeRawUnsafe(
        `INSERT INTO purchase_order_lines (purchase_order_id, position, product_external_id, quantity, price)
         SELECT v.purchase_order_id, v.position, v.product_external_id, v.quantity, v.price
           FROM jsonb_to_recordset($1::jsonb)
             AS v(purchase_order_id int, position int, product_external_id text, quantity double precision, price double precision)`,
        JSON.stringify(lines),
      );
    }
  }
  return outcomes;
}

export async function syncPurchaseOrders(prisma: PrismaClient, records: readonly unknown[], context: string): Promise<SyncResultShape> {
  const { valid, errors } = validateBatch(records, purchaseOrderInput, {
    argName: 'purchase_orders',
    maxItems: MAX_PURCHASE_ORDERS_PER_REQUEST,
  });
  const outcomes = await inTransaction(prisma, (tx) =>
    upsertPurchaseOrders(
      tx,
      valid.map((v) => v.value),
      context,
    ),
  );
  return syncResult(outcomes, errors);
}

export function listUpdatedPurchaseOrders(prisma: PrismaClient, reader: string, args: PageArgs): Promise<PageShape<PurchaseOrder>> {
  return changeListPage(prisma, 'purchase_orders', reader, args);
}

export function listPurchaseOrders(
  prisma: PrismaClient,
  filter: { supplierExternalId?: string | null; pending?: boolean | null },
  args: PageArgs,
): Promise<PageShape<PurchaseOrder>> {
  const where = {
    ...(filter.supplierExternalId ? { supplierExternalId: filter.supplierExternalId } : {}),
    ...(filter.pending != null ? { pending: filter.pending } : {}),
  };
  return fetchPage(args, where, {
    find: (w, window) => prisma.purchaseOrder.findMany({ where: w, orderBy: RECENT_ORDER, ...window }),
    count: (w) => prisma.purchaseOrder.count({ where: w }),
  });
}
