import type { FeedListing } from '../changes/ledger';
import type { PrismaClient, PurchaseOrder } from '../generated/prisma/client';
import type { PageShape, SyncResultShape } from '../changes/results';
import { changeListPage, fetchPage, RECENT_ORDER, type ChangeListSource, type PageArgs } from '../changes/page';
import { syncResult, validateBatch } from '../changes/tracked.service';
import { inPushTransaction, type TransactionSource, upsertTracked, type RecordReport, type TrackedTableSpec } from '../changes/upsert';
import { toSourceTime } from '../changes/source-time';
import { pageOnChannel } from '../changes/channel-view';
import type { PushedBy } from '../changes/history-writes';
import type { SqlRunner } from '../changes/ledger';
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
  pushedBy: PushedBy,
): Promise<RecordReport[]> {
  const { reports, written } = await upsertTracked(
    tx,
    purchaseOrderTable,
    orders.map(({ external_id, erp_id, supplier_external_id, source_updated_at, ...fields }) => ({
      externalId: external_id,
      columns: { erp_id, supplier_external_id },
      fields,
      sourceUpdatedAt: toSourceTime(source_updated_at),
    })),
    context,
    pushedBy,
  );
  const relined = written.filter((w) => w.changed.has('lines'));
  if (relined.length > 0) {
    await tx.$executeRaw`DELETE FROM purchase_order_lines
      WHERE purchase_order_id IN (SELECT (jsonb_array_elements_text(${JSON.stringify(relined.map((w) => w.id))}::jsonb))::int)`;
    const lines = relined.flatMap((w) =>
      (w.data.lines as PurchaseOrderInput['lines']).map((line, position) => ({ purchase_order_id: w.id, position, ...line })),
    );
    if (lines.length > 0) {
      await tx.$executeRaw`
        INSERT INTO purchase_order_lines (purchase_order_id, position, product_external_id, quantity, price)
         SELECT v.purchase_order_id, v.position, v.product_external_id, v.quantity, v.price
           FROM jsonb_to_recordset(${JSON.stringify(lines)}::jsonb)
             AS v(purchase_order_id int, position int, product_external_id text, quantity double precision, price double precision)`;
    }
  }
  return reports;
}

export async function syncPurchaseOrders(
  db: TransactionSource,
  records: readonly unknown[],
  context: string,
  dryRun = false,
  pushedBy: PushedBy = null,
): Promise<SyncResultShape> {
  const { valid, errors } = await validateBatch(records, purchaseOrderInput, {
    argName: 'purchase_orders',
    maxItems: MAX_PURCHASE_ORDERS_PER_REQUEST,
  });
  const reports = await inPushTransaction(db, dryRun, (tx) =>
    upsertPurchaseOrders(
      tx,
      valid.map((v) => v.value),
      context,
      pushedBy,
    ),
  );
  const indexed = reports.map((r, i) => ({ ...r, index: valid[i]!.index, externalId: valid[i]!.value.external_id }));
  return syncResult(indexed, errors, { argName: 'purchase_orders', dryRun });
}

export function listUpdatedPurchaseOrders(db: ChangeListSource, reader: FeedListing, args: PageArgs): Promise<PageShape<PurchaseOrder>> {
  return changeListPage(db, 'purchase_orders', reader, args);
}

/** All purchase orders for dashboards, newest change first; `pending` on `channelId` (null: default; ADR 0045). */
export function listPurchaseOrders(
  prisma: PrismaClient,
  filter: { supplierExternalId?: string | null | undefined; pending?: boolean | null | undefined },
  args: PageArgs,
  channelId: number | null = null,
): Promise<PageShape<PurchaseOrder>> {
  if (channelId !== null && filter.pending != null) {
    const conditions = filter.supplierExternalId ? [{ column: 'supplier_external_id', equals: filter.supplierExternalId }] : [];
    return pageOnChannel(prisma, 'purchase_orders', channelId, filter.pending, conditions, args, (ids) =>
      prisma.purchaseOrder.findMany({ where: { id: { in: ids } } }),
    );
  }
  const where = {
    ...(filter.supplierExternalId ? { supplierExternalId: filter.supplierExternalId } : {}),
    ...(filter.pending != null ? { pending: filter.pending } : {}),
  };
  return fetchPage(args, where, {
    find: (w, window) => prisma.purchaseOrder.findMany({ where: w, orderBy: RECENT_ORDER, ...window }),
    count: (w) => prisma.purchaseOrder.count({ where: w }),
  });
}
