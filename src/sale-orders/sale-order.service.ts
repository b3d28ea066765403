import type { FeedListing } from '../changes/ledger';
import type { PrismaClient, SaleOrder } from '../generated/prisma/client';
import type { PageShape, SyncResultShape } from '../changes/results';
import { changeListPage, fetchPage, RECENT_ORDER, type ChangeListSource, type PageArgs } from '../changes/page';
import { syncResult, validateBatch } from '../changes/tracked.service';
import { inPushTransaction, type TransactionSource, upsertTracked, type TrackedTableSpec } from '../changes/upsert';
import { toSourceTime } from '../changes/source-time';
import { pageOnChannel, type ColumnCondition } from '../changes/channel-view';
import type { PushedBy } from '../changes/history-writes';
import { MAX_SALE_ORDERS_PER_REQUEST, saleOrderInput, type SaleOrderDirection } from './sale-order.input';

const saleOrderTable: TrackedTableSpec = {
  table: 'sale_orders',
  columns: [
    { name: 'erp_id', sqlType: 'int' },
    { name: 'direction', sqlType: 'sale_order_direction' },
    { name: 'partner_external_id', sqlType: 'text' },
  ],
};

export async function syncSaleOrders(
  db: TransactionSource,
  records: readonly unknown[],
  context: string,
  dryRun = false,
  pushedBy: PushedBy = null,
): Promise<SyncResultShape> {
  const { valid, errors } = await validateBatch(records, saleOrderInput, {
    argName: 'sale_orders',
    maxItems: MAX_SALE_ORDERS_PER_REQUEST,
  });
  const incoming = valid.map(({ value: { external_id, erp_id, direction, partner_external_id, source_updated_at, ...fields } }) => ({
    externalId: external_id,
    columns: { erp_id, direction, partner_external_id },
    fields,
    sourceUpdatedAt: toSourceTime(source_updated_at),
  }));
  const { reports } = await inPushTransaction(db, dryRun, (tx) => upsertTracked(tx, saleOrderTable, incoming, context, pushedBy));
  const indexed = reports.map((r, i) => ({ ...r, index: valid[i]!.index, externalId: valid[i]!.value.external_id }));
  return syncResult(indexed, errors, { argName: 'sale_orders', dryRun });
}

export type SaleOrderFilter = {
  direction?: SaleOrderDirection | null | undefined;
  pending?: boolean | null | undefined;
  partnerExternalId?: string | null | undefined;
};

/** Sale orders with pending changes, optionally of one direction; the page is remembered for the ack. */
export function listUpdatedSaleOrders(
  db: ChangeListSource,
  reader: FeedListing,
  args: PageArgs & { direction?: SaleOrderDirection | null | undefined },
): Promise<PageShape<SaleOrder>> {
  return changeListPage(db, 'sale_orders', reader, args, args.direction ? { direction: args.direction } : {});
}

/** All sale orders for dashboards, newest change first; `pending` on `channelId` (null: default; ADR 0045). */
export function listSaleOrders(
  prisma: PrismaClient,
  filter: SaleOrderFilter,
  args: PageArgs,
  channelId: number | null = null,
): Promise<PageShape<SaleOrder>> {
  if (channelId !== null && filter.pending != null) {
    const conditions: ColumnCondition[] = [
      ...(filter.direction ? [{ column: 'direction', equals: filter.direction }] : []),
      ...(filter.partnerExternalId ? [{ column: 'partner_external_id', equals: filter.partnerExternalId }] : []),
    ];
    return pageOnChannel(prisma, 'sale_orders', channelId, filter.pending, conditions, args, (ids) =>
      prisma.saleOrder.findMany({ where: { id: { in: ids } } }),
    );
  }
  const where = {
    ...(filter.direction ? { direction: filter.direction } : {}),
    ...(filter.pending != null ? { pending: filter.pending } : {}),
    ...(filter.partnerExternalId ? { partnerExternalId: filter.partnerExternalId } : {}),
  };
  return fetchPage(args, where, {
    find: (w, window) => prisma.saleOrder.findMany({ where: w, orderBy: RECENT_ORDER, ...window }),
    count: (w) => prisma.saleOrder.count({ where: w }),
  });
}
