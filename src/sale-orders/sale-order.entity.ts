import { type TrackedEntity } from '../changes/tracked-entity';
import { entityOfTable } from '../changes/tracked-entities';
import { MAX_SALE_ORDERS_PER_REQUEST, saleOrderInput } from './sale-order.input';

/** Sale orders, inbound (from the ERP) or outbound (to it); the change list filters by direction. */
export const saleOrderEntity = {
  ...entityOfTable('sale_orders'),
  tag: 'Sale orders',
  operations: {
    sync: 'syncSaleOrders',
    list: 'updatedSaleOrders',
    ackOne: 'acknowledgeSaleOrder',
    ackMany: 'acknowledgeSaleOrders',
    pendingCount: 'saleOrders',
  },
  listPath: '/v1/updated-sale-orders',
  push: {
    path: '/v1/sale-orders',
    listArg: 'sale_orders',
    maxItems: MAX_SALE_ORDERS_PER_REQUEST,
    input: { name: 'SaleOrderInput', schema: saleOrderInput },
    context: true,
  },
} as const satisfies TrackedEntity;
