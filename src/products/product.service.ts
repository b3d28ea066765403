import type { FeedListing } from '../changes/ledger';
import type { PrismaClient, Product } from '../generated/prisma/client';
import type { PageShape, SyncResultShape } from '../changes/results';
import { changeListPage, fetchPage, RECENT_ORDER, type ChangeListSource, type PageArgs } from '../changes/page';
import { syncResult, validateBatch } from '../changes/tracked.service';
import { inPushTransaction, type TransactionSource, upsertTracked, type TrackedTableSpec } from '../changes/upsert';
import { toSourceTime } from '../changes/source-time';
import { pageOnChannel, type ColumnCondition } from '../changes/channel-view';
import type { PushedBy } from '../changes/history-writes';
import { upsertPriceItems } from '../pricelists/pricelist.service';
import { upsertPurchaseOrders } from '../purchase-orders/purchase-order.service';
import { MAX_PRODUCTS_PER_REQUEST, productInput } from './product.input';

export const productTable: TrackedTableSpec = { table: 'products', columns: [{ name: 'erp_id', sqlType: 'int' }] };

export async function syncProducts(
  db: TransactionSource,
  records: readonly unknown[],
  context: string,
  dryRun = false,
  pushedBy: PushedBy = null,
): Promise<SyncResultShape> {
  const { valid, errors } = await validateBatch(records, productInput, { argName: 'products', maxItems: MAX_PRODUCTS_PER_REQUEST });
  const incoming = valid.map(
    ({ value: { external_id, erp_id, source_updated_at, pricelists: _prices, purchase_orders: _orders, ...fields } }) => ({
      externalId: external_id,
      columns: { erp_id },
      fields,
      sourceUpdatedAt: toSourceTime(source_updated_at),
    }),
  );
  // One transaction: a product and what was extracted from it are stored together or not at all.
  const reports = await inPushTransaction(db, dryRun, async (tx) => {
    const result = await upsertTracked(tx, productTable, incoming, context, pushedBy);
    // A stale product brings no prices or purchase orders either: they are as old as it is.
    const applied = valid.filter((_v, i) => result.outcomes[i] !== 'skipped');
    const priceItems = applied.flatMap(({ value }) =>
      (value.pricelists ?? []).map((item) => ({ ...item, product_external_id: value.external_id })),
    );
    await upsertPriceItems(tx, priceItems, pushedBy);
    await upsertPurchaseOrders(
      tx,
      applied.flatMap(({ value }) => value.purchase_orders ?? []),
      context,
      pushedBy,
    );
    return result.reports;
  });
  const indexed = reports.map((r, i) => ({ ...r, index: valid[i]!.index, externalId: valid[i]!.value.external_id }));
  return syncResult(indexed, errors, { argName: 'products', dryRun });
}

export type ProductFilter = {
  pending?: boolean | null | undefined;
  externalId?: string | null | undefined;
  updatedSince?: Date | null | undefined;
};

/**
 * All products for dashboards, newest change first; does not touch the acknowledgement ledger.
 * `pending` is the state on `channelId` (null: default, the rows' own column; ADR 0045).
 */
export function listProducts(
  prisma: PrismaClient,
  filter: ProductFilter,
  args: PageArgs,
  channelId: number | null = null,
): Promise<PageShape<Product>> {
  if (channelId !== null && filter.pending != null) {
    const conditions: ColumnCondition[] = [
      ...(filter.externalId ? [{ column: 'external_id', equals: filter.externalId }] : []),
      ...(filter.updatedSince ? [{ column: 'updated_at', after: filter.updatedSince }] : []),
    ];
    return pageOnChannel(prisma, 'products', channelId, filter.pending, conditions, args, (ids) =>
      prisma.product.findMany({ where: { id: { in: ids } } }),
    );
  }
  const where = {
    ...(filter.pending != null ? { pending: filter.pending } : {}),
    ...(filter.externalId ? { externalId: filter.externalId } : {}),
    ...(filter.updatedSince ? { updatedAt: { gt: filter.updatedSince } } : {}),
  };
  return fetchPage(args, where, {
    find: (w, window) => prisma.product.findMany({ where: w, orderBy: RECENT_ORDER, ...window }),
    count: (w) => prisma.product.count({ where: w }),
  });
}

/** Products with pending changes, oldest change first; the page is remembered for the ack. */
export function listUpdatedProducts(db: ChangeListSource, reader: FeedListing, args: PageArgs): Promise<PageShape<Product>> {
  return changeListPage(db, 'products', reader, args);
}
