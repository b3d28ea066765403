import DataLoader from 'dataloader';
import type { Stock as StockRow } from '../generated/prisma/client';
import { registerTrackedOperations } from '../changes/tracked.schema';
import { REVISION_DESCRIPTION } from '../changes/tracked-fields';
import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { listingReaderOf } from '../changes/reader.schema';
import { changeListArgs, pageArgs, pageOf } from '../changes/pages.schema';
import { channelViewOf, ON_CALLERS_CHANNEL } from '../changes/ledger-view.schema';
import { stockEntity } from './stock.entity';
import { listChangedStocks, listStocks, lookupStock, stocksOfProducts, syncStocks } from './stock.service';
import { perRequest } from '../graphql/per-request';
import type { RequestContext } from '../graphql/context';

export const Stock = builder.prismaObject('Stock', {
  description: 'Stock of one product at one supplier.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Middleware record id; used in the acknowledgement.' }),
    supplierExternalId: t.exposeString('supplierExternalId'),
    productExternalId: t.exposeString('productExternalId'),
    quantity: t.exposeFloat('quantity'),
    previousQuantity: t.exposeFloat('previousQuantity', {
      nullable: true,
      description: 'The quantity before the latest quantity change; null while it never changed.',
    }),
    purchasePrice: t.exposeFloat('purchasePrice', { nullable: true }),
    suggestedSalePrice: t.exposeFloat('suggestedSalePrice', { nullable: true }),
    isQuantityChanged: t.boolean({
      description: `True when the entry is new or its quantity changed since the last acknowledgement. ${ON_CALLERS_CHANNEL}`,
      resolve: (s, _args, ctx) => channelViewOf(s, ctx, 'stocks')?.then((v) => v.pending) ?? s.pending,
    }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Time of the last change of quantity or prices.' }),
    revision: t.exposeInt('revision', { description: REVISION_DESCRIPTION }),
  }),
});

const StockPage = pageOf('StockPage', Stock);

builder.queryFields((t) => ({
  [stockEntity.operations.list]: t.field({
    ...allow('feed'),
    type: StockPage,
    description: 'Stock entries whose quantity changed since their last acknowledgement, ordered by updatedAt then id.',
    args: changeListArgs,
    resolve: (_root, args, ctx) => listChangedStocks(ctx, listingReaderOf(ctx), args),
  }),
  stocksBySupplier: t.field({
    ...allow('read'),
    type: StockPage,
    description: 'All stock of one supplier, ordered by product external id.',
    args: { supplierId: t.arg.string({ required: true, description: 'The supplier external id.' }), ...pageArgs },
    resolve: (_root, args, ctx) => listStocks(ctx.prisma, { supplierExternalId: args.supplierId }, args),
  }),
  stocksByProduct: t.field({
    ...allow('read'),
    type: StockPage,
    description: 'Stock of all suppliers for one product, ordered by supplier external id.',
    args: { productId: t.arg.string({ required: true, description: 'The product external id.' }), ...pageArgs },
    resolve: (_root, args, ctx) => listStocks(ctx.prisma, { productExternalId: args.productId }, args),
  }),
  stockLookup: t.field({
    ...allow('read'),
    type: Stock,
    description: 'One stock entry by supplier and product external ids.',
    args: {
      supplier_id: t.arg.string({ required: true, description: 'The supplier external id.' }),
      product_id: t.arg.string({ required: true, description: 'The product external id.' }),
    },
    resolve: (_root, args, ctx) => lookupStock(ctx.prisma, args.supplier_id, args.product_id),
  }),
}));

/** Every product of an answer gets its stock from one statement. */
const stocksByProduct = (ctx: Pick<RequestContext, 'prisma'>) =>
  new DataLoader<string, StockRow[]>(async (productIds) => {
    const byProduct = await stocksOfProducts(ctx.prisma, productIds);
    return productIds.map((id) => byProduct.get(id) ?? []);
  });

builder.prismaObjectField('Product', 'stock', (t) =>
  t.field({
    type: [Stock],
    description: 'Stock of this product at every supplier.',
    resolve: (product, _args, ctx) => perRequest(ctx, stocksByProduct).load(product.externalId),
  }),
);

registerTrackedOperations(stockEntity, (db, records, _context, dryRun) => syncStocks(db, records, dryRun));
