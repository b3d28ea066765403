import type DataLoader from 'dataloader';
import type { HistoryEntityType } from '../changes/history-writes';
import { allow, visibleTo } from '../graphql/access';
import { builder } from '../graphql/builder';
import { perRequestLoader, type LoaderFamily } from '../graphql/per-request';
import type { RequestContext } from '../graphql/context';
import { PriceItem } from '../pricelists/pricelist.schema';
import { Partner } from '../partners/partner.schema';
import { Product } from '../products/product.schema';
import { PurchaseOrder } from '../purchase-orders/purchase-order.schema';
import { SaleOrder } from '../sale-orders/sale-order.schema';
import {
  DEFAULT_HISTORY_LIMIT,
  HISTORY_TYPES,
  MAX_HISTORY_LIMIT,
  historyByExternalId,
  historyLimit,
  historyOfRecords,
  type FieldChangeShape,
  type HistoryEntryShape,
  type RecordHistoryShape,
} from './history.service';

const FieldChange = builder.objectRef<FieldChangeShape>('FieldChange').implement({
  description: 'One field of a change: its value before (null when the change created the record) and after.',
  fields: (t) => ({
    field: t.exposeString('field'),
    old: t.field({ type: 'JSON', nullable: true, resolve: (c) => c.old }),
    new: t.field({ type: 'JSON', nullable: true, resolve: (c) => c.new }),
  }),
});

const HistoryAction = builder.enumType('HistoryAction', { values: ['created', 'updated'] as const });

const HistoryEntry = builder.objectRef<HistoryEntryShape>('HistoryEntry').implement({
  description: 'One accepted change of a record: when, which revision, who pushed it, and each changed field before and after.',
  fields: (t) => ({
    recordId: t.exposeInt('recordId', { description: 'Middleware id of the record (the id of its change records).' }),
    revision: t.exposeInt('revision', { description: 'The revision this change produced.' }),
    changedAt: t.expose('changedAt', { type: 'DateTime', description: "The record's updatedAt for this revision." }),
    tokenName: t.exposeString('tokenName', {
      ...visibleTo('admin'),
      nullable: true,
      description: 'Name of the API token (or admin account) that pushed the change. Role admin only: null for the others.',
    }),
    action: t.field({ type: HistoryAction, resolve: (e) => e.action }),
    changes: t.expose('changes', { type: [FieldChange], description: 'The changed fields, by name.' }),
    pricelistExternalId: t.exposeString('pricelistExternalId', { nullable: true, description: 'Price items only: the pricelist.' }),
  }),
});

const RecordHistory = builder.objectRef<RecordHistoryShape>('RecordHistory').implement({
  fields: (t) => ({
    entityType: t.exposeString('entityType'),
    externalId: t.exposeString('externalId'),
    entries: t.expose('entries', { type: [HistoryEntry], description: 'Newest first.' }),
  }),
});

const LIMIT_DESCRIPTION = `Entries to return, newest first: 1 to ${MAX_HISTORY_LIMIT}, default ${DEFAULT_HISTORY_LIMIT}.`;

const RETENTION_NOTE = 'Entries older than RETENTION_HISTORY_DAYS (default 90) are deleted; a resync writes none.';

builder.queryField('history', (t) =>
  t.field({
    ...allow('read'),
    type: RecordHistory,
    description:
      `The last changes of one record (${HISTORY_TYPES.join(', ')}; for price_item externalId is the product's, and the entries are those of its ` +
      `items in every pricelist). An unknown record is a 404 (NOT_FOUND). ${RETENTION_NOTE}`,
    args: {
      entityType: t.arg.string({ required: true }),
      externalId: t.arg.string({ required: true }),
      limit: t.arg.int({ description: LIMIT_DESCRIPTION }),
    },
    resolve: (_root, args, ctx) => historyByExternalId(ctx.prisma, args),
  }),
);

/** One loader per request, entity type and limit: the history of a page of records in one statement. */
const historyLoaders: LoaderFamily<number, HistoryEntryShape[]> = () => new Map();

function historyLoader(ctx: RequestContext, entityType: HistoryEntityType, limit: number): DataLoader<number, HistoryEntryShape[]> {
  return perRequestLoader(ctx, historyLoaders, `${entityType}:${limit}`, async (ids) => {
    const byRecord = await historyOfRecords(ctx.prisma, entityType, ids, limit);
    return ids.map((id) => byRecord.get(id) ?? []);
  });
}

/**
 * `history(limit)` on a record type. GraphQL only (extensions.graphqlOnly): SOFA would otherwise
 * select it into every REST answer holding the type; REST has GET /api/v1/history/….
 */
function addHistoryField(type: Parameters<typeof builder.objectField>[0], entityType: HistoryEntityType): void {
  builder.objectField(type, 'history', (t) =>
    t.field({
      type: [HistoryEntry],
      description: `This record's last changes, newest first. ${RETENTION_NOTE}`,
      extensions: { graphqlOnly: true },
      args: { limit: t.arg.int({ description: LIMIT_DESCRIPTION }) },
      resolve: (record, args, ctx) => {
        const { id, pricelistExternalId } = record as { id: number; pricelistExternalId?: string };
        return historyLoader(ctx, entityType, historyLimit(args.limit))
          .load(id)
          .then((entries) => (pricelistExternalId === undefined ? entries : entries.map((e) => ({ ...e, pricelistExternalId }))));
      },
    }),
  );
}

addHistoryField(Product, 'product');
addHistoryField(Partner, 'partner');
addHistoryField(SaleOrder, 'sale_order');
addHistoryField(PurchaseOrder, 'purchase_order');
addHistoryField(PriceItem, 'price_item');
