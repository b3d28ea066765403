import { type TrackedEntity } from '../changes/tracked-entity';
import { entityOfTable } from '../changes/tracked-entities';
import { MAX_PRODUCTS_PER_REQUEST, productInput } from './product.input';

/** Products: pushed by the ERP (with their prices and purchase orders), listed and acknowledged. */
export const productEntity = {
  ...entityOfTable('products'),
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
} as const satisfies TrackedEntity;
