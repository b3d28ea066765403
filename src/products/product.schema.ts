import { registerTrackedOperations } from '../changes/tracked.schema';
import { ChangeRecord, TrackedRecord, idOrExternalId } from '../changes/tracked-fields';
import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { ledgerChannelOf, listingReaderOf } from '../changes/reader.schema';
import { changeListArgs, pageArgs, pageOf } from '../changes/pages.schema';
import { ON_CALLERS_CHANNEL } from '../changes/ledger-view.schema';
import { productEntity } from './product.entity';
import { listProducts, listUpdatedProducts, syncProducts } from './product.service';

/** A product with pending changes, exactly the record of SPEC 2.1. */
export const ProductChange = builder.prismaObject('Product', {
  variant: 'ProductChange',
  description: 'A product with pending changes (outbound change record).',
  interfaces: [ChangeRecord],
  fields: () => ({}),
});

/** The full product for dashboards (price items and stock are added by their domains). */
export const Product = builder.prismaObject('Product', {
  interfaces: [TrackedRecord, ChangeRecord],
  fields: () => ({}),
});

const ProductFilter = builder.inputType('ProductFilter', {
  fields: (t) => ({
    pending: t.boolean({ description: `Only products with (true) or without (false) pending changes. ${ON_CALLERS_CHANNEL}` }),
    externalId: t.string(),
    updatedSince: t.field({ type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  [productEntity.operations.list]: t.field({
    ...allow('feed'),
    type: pageOf('ProductChangePage', ProductChange),
    description:
      'Products with pending changes, ordered by updatedAt then id. Listing a record records the revision shown, which a later acknowledgement covers.',
    args: changeListArgs,
    resolve: (_root, args, ctx) => listUpdatedProducts(ctx, listingReaderOf(ctx), args),
  }),
  products: t.field({
    ...allow('read'),
    type: pageOf('ProductPage', Product),
    description: 'All products for dashboards, newest change first. Listing here does not affect acknowledgements.',
    args: { filter: t.arg({ type: ProductFilter }), ...pageArgs },
    resolve: (_root, args, ctx) => listProducts(ctx.prisma, args.filter ?? {}, args, ledgerChannelOf(ctx)),
  }),
  product: t.prismaField({
    ...allow('read'),
    type: Product,
    nullable: true,
    description: 'One product by middleware id or external id (exactly one of them).',
    args: { id: t.arg.int(), externalId: t.arg.string() },
    resolve: (query, _root, args, ctx) => ctx.prisma.product.findUnique({ ...query, where: idOrExternalId(args) }),
  }),
}));

registerTrackedOperations(productEntity, syncProducts);
