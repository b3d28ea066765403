import { registerTrackedOperations } from '../changes/tracked.schema';
import { ChangeRecord, TrackedRecord } from '../changes/tracked-fields';
import { notFound } from '../errors/app-error';
import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { ledgerChannelOf, listingReaderOf } from '../changes/reader.schema';
import { changeListArgs, pageArgs, pageOf } from '../changes/pages.schema';
import { ON_CALLERS_CHANNEL } from '../changes/ledger-view.schema';
import { purchaseOrderEntity } from './purchase-order.entity';
import { listPurchaseOrders, listUpdatedPurchaseOrders, syncPurchaseOrders } from './purchase-order.service';

const dataOf = (o: { data: unknown }) => o.data as Record<string, unknown>;
const textOrNull = (value: unknown) => (typeof value === 'string' ? value : null);

export const PurchaseOrderChange = builder.prismaObject('PurchaseOrder', {
  variant: 'PurchaseOrderChange',
  description:
    'A purchase order with pending changes; data holds the order as the ERP sent it (state, order_date, lines…). A change to any line is reported as "lines".',
  interfaces: [ChangeRecord],
  fields: (t) => ({
    supplierExternalId: t.exposeString('supplierExternalId'),
  }),
});

export const PurchaseOrderLine = builder.prismaObject('PurchaseOrderLine', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    position: t.exposeInt('position', { description: 'Position of the line in the order, from 0.' }),
    productExternalId: t.exposeString('productExternalId'),
    quantity: t.exposeFloat('quantity'),
    price: t.exposeFloat('price'),
  }),
});

export const PurchaseOrder = builder.prismaObject('PurchaseOrder', {
  interfaces: [TrackedRecord, ChangeRecord],
  fields: (t) => ({
    supplierExternalId: t.exposeString('supplierExternalId'),
    state: t.string({ nullable: true, resolve: (o) => textOrNull(dataOf(o).state) }),
    orderDate: t.string({
      nullable: true,
      description: 'order_date as the ERP sent it.',
      resolve: (o) => textOrNull(dataOf(o).order_date),
    }),
    lines: t.relation('lines', { query: { orderBy: { position: 'asc' } } }),
  }),
});

const PurchaseOrderFilter = builder.inputType('PurchaseOrderFilter', {
  fields: (t) => ({
    supplierExternalId: t.string(),
    pending: t.boolean({ description: `Only purchase orders with (true) or without (false) pending changes. ${ON_CALLERS_CHANNEL}` }),
  }),
});

// updatedPurchaseOrders is declared before purchaseOrder so that /purchase-orders/updated is routed before /purchase-orders/{id}.
builder.queryFields((t) => ({
  [purchaseOrderEntity.operations.list]: t.field({
    ...allow('feed'),
    type: pageOf('PurchaseOrderChangePage', PurchaseOrderChange),
    description: 'Purchase orders with pending changes, ordered by updatedAt then id.',
    args: changeListArgs,
    resolve: (_root, args, ctx) => listUpdatedPurchaseOrders(ctx, listingReaderOf(ctx), args),
  }),
  purchaseOrders: t.field({
    ...allow('read'),
    type: pageOf('PurchaseOrderPage', PurchaseOrder),
    description: 'All purchase orders for dashboards, newest change first.',
    args: { filter: t.arg({ type: PurchaseOrderFilter }), ...pageArgs },
    resolve: (_root, args, ctx) => listPurchaseOrders(ctx.prisma, args.filter ?? {}, args, ledgerChannelOf(ctx)),
  }),
  purchaseOrder: t.prismaField({
    ...allow('read'),
    type: PurchaseOrder,
    description: 'One purchase order with its lines; NOT_FOUND for an unknown id.',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const order = await ctx.prisma.purchaseOrder.findUnique({ ...query, where: { id: args.id } });
      if (!order) throw notFound('Purchase order', args.id);
      return order;
    },
  }),
}));

registerTrackedOperations(purchaseOrderEntity, syncPurchaseOrders);
