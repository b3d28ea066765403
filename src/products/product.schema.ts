import { builder } from '../graphql/builder';
import { registerTrackedOperations } from '../changes/tracked-graphql';
import { changeListArgs, pageArgs, pageOf } from '../graphql/pages';
import { validationFailed } from '../errors/app-error';
import { MAX_PRODUCTS_PER_REQUEST } from './product.input';
import { listProducts, listUpdatedProducts, syncProducts } from './product.service';

/** A product with pending changes, exactly the record of SPEC 2.1. */
export const ProductChange = builder.prismaObject('Product', {
  variant: 'ProductChange',
  description: 'A product with pending changes (outbound change record).',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Middleware record id; used in the acknowledgement.' }),
    externalId: t.exposeString('externalId'),
    erpId: t.exposeInt('erpId', { nullable: true }),
    isNew: t.exposeBoolean('isNew', { description: 'True until the record is first acknowledged.' }),
    changedFields: t.exposeStringList('changedFields', {
      description: 'Fields changed since the last acknowledgement (all fields while isNew).',
    }),
    context: t.exposeString('context'),
    data: t.field({
      type: 'JSONObject',
      description: 'The product fields as the ERP sent them.',
      resolve: (p) => p.data as Record<string, unknown>,
    }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

/** The full product for dashboards. */
export const Product = builder.prismaObject('Product', {
  fields: (t) => ({
    id: t.exposeInt('id'),
    externalId: t.exposeString('externalId'),
    erpId: t.exposeInt('erpId', { nullable: true }),
    data: t.field({ type: 'JSONObject', resolve: (p) => p.data as Record<string, unknown> }),
    context: t.exposeString('context'),
    pending: t.exposeBoolean('pending', { description: 'Has changes the webshop has not acknowledged.' }),
    isNew: t.exposeBoolean('isNew'),
    changedFields: t.exposeStringList('changedFields'),
    revision: t.exposeInt('revision', { description: 'Number of accepted changes.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    acknowledgedAt: t.expose('acknowledgedAt', { type: 'DateTime', nullable: true }),
  }),
});

const ProductChangePage = pageOf('ProductChangePage', ProductChange);
const ProductPage = pageOf('ProductPage', Product);

const ProductFilter = builder.inputType('ProductFilter', {
  fields: (t) => ({
    pending: t.boolean({ description: 'Only products with (true) or without (false) pending changes.' }),
    externalId: t.string(),
    updatedSince: t.field({ type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  updatedProducts: t.field({
    type: ProductChangePage,
    description:
      'Products with pending changes, ordered by updatedAt then id. Listing a record records the revision shown, which a later acknowledgement covers.',
    args: changeListArgs,
    resolve: (_root, args, ctx) => listUpdatedProducts(ctx.prisma, args),
  }),
  products: t.field({
    type: ProductPage,
    description: 'All products for dashboards, newest change first. Listing here does not affect acknowledgements.',
    args: { filter: t.arg({ type: ProductFilter }), ...pageArgs },
    resolve: (_root, args, ctx) => listProducts(ctx.prisma, args.filter ?? {}, args),
  }),
  product: t.prismaField({
    type: Product,
    nullable: true,
    description: 'One product by middleware id or external id (exactly one of them).',
    args: { id: t.arg.int(), externalId: t.arg.string() },
    resolve: (query, _root, args, ctx) => {
      if ((args.id == null) === (args.externalId == null)) {
        throw validationFailed([{ field: 'id', message: 'Give exactly one of id and externalId' }]);
      }
      return ctx.prisma.product.findUnique({
        ...query,
        where: args.id != null ? { id: args.id } : { externalId: args.externalId! },
      });
    },
  }),
}));

registerTrackedOperations({
  table: 'products',
  label: 'Product',
  names: { ackOne: 'acknowledgeProduct', ackMany: 'acknowledgeProducts', pendingCount: 'products' },
  sync: { name: 'syncProducts', listArg: 'products', maxItems: MAX_PRODUCTS_PER_REQUEST, run: syncProducts },
});
