import { registerTrackedOperations } from '../changes/tracked.schema';
import { ChangeRecord, TrackedRecord, idOrExternalId } from '../changes/tracked-fields';
import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { ledgerChannelOf, listingReaderOf } from '../changes/reader.schema';
import { changeListArgs, pageArgs, pageOf } from '../changes/pages.schema';
import { ON_CALLERS_CHANNEL } from '../changes/ledger-view.schema';
import { SALE_ORDER_DIRECTIONS } from './sale-order.input';
import { saleOrderEntity } from './sale-order.entity';
import { listSaleOrders, listUpdatedSaleOrders, syncSaleOrders } from './sale-order.service';

export const SaleOrderDirectionEnum = builder.enumType('SaleOrderDirection', {
  description: 'inbound: from the ERP; outbound: to the ERP.',
  values: SALE_ORDER_DIRECTIONS,
});

/** A sale order with pending changes: the record of SPEC 2.1 plus direction and partner. */
export const SaleOrderChange = builder.prismaObject('SaleOrder', {
  variant: 'SaleOrderChange',
  description: 'A sale order with pending changes (outbound change record); data holds lines and any other fields.',
  interfaces: [ChangeRecord],
  fields: (t) => ({
    direction: t.field({ type: SaleOrderDirectionEnum, resolve: (o) => o.direction }),
    partnerExternalId: t.exposeString('partnerExternalId', { nullable: true }),
  }),
});

export const SaleOrder = builder.prismaObject('SaleOrder', {
  interfaces: [TrackedRecord, ChangeRecord],
  fields: (t) => ({
    direction: t.field({ type: SaleOrderDirectionEnum, resolve: (o) => o.direction }),
    partnerExternalId: t.exposeString('partnerExternalId', { nullable: true }),
  }),
});

const SaleOrderChangePage = pageOf('SaleOrderChangePage', SaleOrderChange);
const SaleOrderPage = pageOf('SaleOrderPage', SaleOrder);

const SaleOrderFilter = builder.inputType('SaleOrderFilter', {
  fields: (t) => ({
    direction: t.field({ type: SaleOrderDirectionEnum }),
    pending: t.boolean({ description: `Only sale orders with (true) or without (false) pending changes. ${ON_CALLERS_CHANNEL}` }),
    partnerExternalId: t.string(),
  }),
});

builder.queryFields((t) => ({
  [saleOrderEntity.operations.list]: t.field({
    ...allow('feed'),
    type: SaleOrderChangePage,
    description: 'Sale orders with pending changes, ordered by updatedAt then id; optionally of one direction.',
    args: {
      ...changeListArgs,
      direction: t.arg({ type: SaleOrderDirectionEnum, description: 'inbound or outbound; both when omitted.' }),
    },
    resolve: (_root, args, ctx) => listUpdatedSaleOrders(ctx, listingReaderOf(ctx), args),
  }),
  saleOrders: t.field({
    ...allow('read'),
    type: SaleOrderPage,
    description: 'All sale orders for dashboards, newest change first.',
    args: { filter: t.arg({ type: SaleOrderFilter }), ...pageArgs },
    resolve: (_root, args, ctx) => listSaleOrders(ctx.prisma, args.filter ?? {}, args, ledgerChannelOf(ctx)),
  }),
  saleOrder: t.prismaField({
    ...allow('read'),
    type: SaleOrder,
    nullable: true,
    description: 'One sale order by middleware id or external id (exactly one of them).',
    args: { id: t.arg.int(), externalId: t.arg.string() },
    resolve: (query, _root, args, ctx) => ctx.prisma.saleOrder.findUnique({ ...query, where: idOrExternalId(args) }),
  }),
}));

registerTrackedOperations(saleOrderEntity, syncSaleOrders);
