import { CHANGE_RECORD_COLUMNS, type TrackedEntity } from '../changes/tracked-entity';
import { MAX_PRODUCTS_PER_REQUEST, productInput } from './product.input';

/** Products: pushed by the ERP (with their prices and purchase orders), listed and acknowledged. */
export const productEntity = {
  table: 'products',
  entityType: 'product',
  typeName: 'Product',
  noun: { one: 'product', many: 'products' },
  tag: 'Products',
  operations: {
    sync: 'syncProducts',
    list: 'updatedProducts',
    ackOne: 'acknowledgeProduct',
    ackMany: 'acknowledgeProducts',
    pendingCount: 'products',
  },
  listPath: '/v1/updated-products',
  push: {
    path: '/v1/products',
    listArg: 'products',
    maxItems: MAX_PRODUCTS_PER_REQUEST,
    input: { name: 'ProductInput', schema: productInput },
    context: true,
  },
  changeColumns: CHANGE_RECORD_COLUMNS,
  keyed: true,
  history: true,
} as const satisfies TrackedEntity;
