import { CHANGE_RECORD_COLUMNS, type TrackedEntity } from '../changes/tracked-entity';
import { MAX_SALE_ORDERS_PER_REQUEST, saleOrderInput } from './sale-order.input';

/** Sale orders, inbound (from the ERP) or outbound (to it); the change list filters by direction. */
export const saleOrderEntity = {
  table: 'sale_orders',
  entityType: 'sale_order',
  typeName: 'SaleOrder',
  noun: { one: 'sale order', many: 'sale orders' },
  tag: 'Sale orders',
  operations: {
    sync: 'syncSaleOrders',
    list: 'updatedSaleOrders',
    ackOne: 'acknowledgeSaleOrder',
    ackMany: 'acknowledgeSaleOrders',
    pendingCount: 'saleOrders',
  },
  listPath: '/v1/updated-sale-orders',
  scopeColumn: 'direction',
  push: {
    path: '/v1/sale-orders',
    listArg: 'sale_orders',
    maxItems: MAX_SALE_ORDERS_PER_REQUEST,
    input: { name: 'SaleOrderInput', schema: saleOrderInput },
    context: true,
  },
  changeColumns: [...CHANGE_RECORD_COLUMNS, 'direction', 'partner_external_id'],
  keyed: true,
  history: true,
} as const satisfies TrackedEntity;
