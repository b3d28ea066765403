import { CHANGE_RECORD_COLUMNS, type TrackedEntity } from '../changes/tracked-entity';
import { MAX_PURCHASE_ORDERS_PER_REQUEST, purchaseOrderInput } from './purchase-order.input';

/** Purchase orders: pushed on their own or extracted from a product's purchase_orders. */
export const purchaseOrderEntity = {
  table: 'purchase_orders',
  entityType: 'purchase_order',
  typeName: 'PurchaseOrder',
  noun: { one: 'purchase order', many: 'purchase orders' },
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
  changeColumns: [...CHANGE_RECORD_COLUMNS, 'supplier_external_id'],
  keyed: true,
  history: true,
} as const satisfies TrackedEntity;
