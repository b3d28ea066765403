import { type TrackedEntity } from '../changes/tracked-entity';
import { entityOfTable } from '../changes/tracked-entities';
import { MAX_PURCHASE_ORDERS_PER_REQUEST, purchaseOrderInput } from './purchase-order.input';

/** Purchase orders: pushed on their own or extracted from a product's purchase_orders. */
export const purchaseOrderEntity = {
  ...entityOfTable('purchase_orders'),
  tag: 'Purchase orders',
  operations: {
    sync: 'syncPurchaseOrders',
    list: 'updatedPurchaseOrders',
    ackMany: 'acknowledgePurchaseOrders',
    pendingCount: 'purchaseOrders',
  },
  listPath: '/v1/purchase-orders/updated',
  push: {
    path: '/v1/purchase-orders',
    listArg: 'purchase_orders',
    maxItems: MAX_PURCHASE_ORDERS_PER_REQUEST,
    input: { name: 'PurchaseOrderInput', schema: purchaseOrderInput },
    context: true,
  },
} as const satisfies TrackedEntity;
