import { registerTrackedOperations } from '../changes/tracked.schema';
import { REVISION_DESCRIPTION } from '../changes/tracked-fields';
import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { listingReaderOf } from '../changes/reader.schema';
import { changeListArgs, pageArgs, pageOf } from '../changes/pages.schema';
import { channelViewOf, ON_CALLERS_CHANNEL } from '../changes/ledger-view.schema';
import { priceItemEntity } from './price-item.entity';
import { listPricelistItems, listPricelists, listUpdatedPriceItems, type PricelistSummary } from './pricelist.service';

/** SPEC 2.3, field for field. */
export const PriceItem = builder.prismaObject('PriceItem', {
  description: 'The price of one product in one pricelist.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Middleware record id; used in the acknowledgement.' }),
    pricelistExternalId: t.exposeString('pricelistExternalId'),
    pricelistName: t.exposeString('pricelistName'),
    productExternalId: t.exposeString('productExternalId'),
    price: t.exposeFloat('price', { description: 'Current price.' }),
    previousPrice: t.exposeFloat('previousPrice', {
      nullable: true,
      description: 'The price before the latest price change; null while the price never changed.',
    }),
    isNew: t.boolean({
      description: `True until the item is first acknowledged. ${ON_CALLERS_CHANNEL}`,
      resolve: (i, _args, ctx) => channelViewOf(i, ctx, 'price_items')?.then((v) => v.isNew) ?? i.isNew,
    }),
    startDate: t.expose('startDate', { type: 'Date', nullable: true }),
    endDate: t.expose('endDate', { type: 'Date', nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Time of the last price or date change.' }),
    revision: t.exposeInt('revision', { description: REVISION_DESCRIPTION }),
  }),
});

const Pricelist = builder.objectRef<PricelistSummary>('Pricelist').implement({
  description: 'A pricelist as seen in the price items: its external id, latest name and number of items.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The pricelist external id.' }),
    name: t.exposeString('name'),
    itemCount: t.exposeInt('itemCount'),
  }),
});

builder.queryFields((t) => ({
  [priceItemEntity.operations.list]: t.field({
    ...allow('feed'),
    type: pageOf('PriceItemPage', PriceItem),
    description: 'Price items whose price or dates changed since their last acknowledgement, ordered by updatedAt then id.',
    args: changeListArgs,
    resolve: (_root, args, ctx) => listUpdatedPriceItems(ctx, listingReaderOf(ctx), args),
  }),
  pricelists: t.field({
    ...allow('read'),
    type: pageOf('PricelistPage', Pricelist),
    description: 'Distinct pricelists, ordered by id.',
    args: pageArgs,
    resolve: (_root, args, ctx) => listPricelists(ctx.prisma, args),
  }),
  pricelistItems: t.field({
    ...allow('read'),
    type: pageOf('PricelistItemPage', PriceItem),
    description: 'Every item of one pricelist, ordered by id (full sync).',
    args: { pricelistId: t.arg.string({ required: true, description: 'The pricelist external id.' }), ...pageArgs },
    resolve: (_root, args, ctx) => listPricelistItems(ctx.prisma, args.pricelistId, args),
  }),
}));

builder.prismaObjectField('Product', 'priceItems', (t) =>
  t.relation('priceItems', {
    query: { orderBy: { pricelistExternalId: 'asc' } },
    description: 'Prices of this product in every pricelist.',
  }),
);

registerTrackedOperations(priceItemEntity);
