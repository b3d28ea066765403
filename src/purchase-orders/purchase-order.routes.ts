import {
  CHANGE_LIST_RULES,
  DRY_RUN_RULE,
  LOOKUP_CHANNEL_RULE,
  SOURCE_TIME_RULE,
  SYNC_RESULT_EXAMPLE,
  batchAckRoute,
  changeListRoute,
  pushRoute,
} from '../changes/tracked.routes';
import type { RestRoute } from '../routing/route-table';
import { purchaseOrderEntity } from './purchase-order.entity';

const exampleInput = {
  external_id: 'PO-5001',
  supplier_external_id: 'SUP-3',
  state: 'confirmed',
  order_date: '2026-11-20',
  lines: [{ product_external_id: 'SKU-1001', quantity: 100, price: 3.1 }],
};

export const purchaseOrderRoutes: RestRoute[] = [
  pushRoute(purchaseOrderEntity, {
    summary: 'Push purchase orders directly',
    description:
      `Body: one purchase order object, or {"purchase_orders": [...]} with up to ${purchaseOrderEntity.push.maxItems.toLocaleString('en')} orders (more is 413). ` +
      'The alternative to extraction: a product pushed to POST /api/v1/products may carry purchase_orders with the same shape, stored by the same service. ' +
      'external_id, supplier_external_id and lines ([{product_external_id, quantity, price}]) are required; erp_id, state and order_date (YYYY-MM-DD or ISO 8601) are optional; ' +
      'other fields are kept in data. Lines are complete: the lines sent replace the stored ones, and any line change is reported as "lines". ' +
      'Bad records are listed in errors; the others are stored. Optional query parameter or body field context labels the change. ' +
      `${SOURCE_TIME_RULE} ${DRY_RUN_RULE}`,
    example: {
      request: { purchase_orders: [exampleInput] },
      response: SYNC_RESULT_EXAMPLE,
    },
  }),
  changeListRoute(purchaseOrderEntity, {
    summary: 'Purchase orders with pending changes',
    description:
      'Change records with changedFields ("lines" for any line change), ordered by updatedAt then id. ' +
      `Acknowledge with POST /api${purchaseOrderEntity.listPath}/batch-delete. ` +
      CHANGE_LIST_RULES,
    example: {
      response: {
        payload: [
          {
            id: 31,
            externalId: 'PO-5001',
            erpId: null,
            supplierExternalId: 'SUP-3',
            isNew: false,
            changedFields: ['lines'],
            context: 'erp_sync',
            data: { state: 'confirmed', order_date: '2026-11-20', lines: exampleInput.lines },
            updatedAt: '2026-11-22T08:30:00.000Z',
            revision: 3,
            previous: { lines: [{ product_external_id: 'SKU-1001', quantity: 80, price: 3.1 }] },
          },
        ],
        meta: { total: 1, limit: 50, offset: 0 },
      },
    },
  }),
  batchAckRoute(purchaseOrderEntity, 'Acknowledge purchase orders'),
  {
    field: 'Query.purchaseOrder',
    method: 'GET',
    path: '/v1/purchase-orders/:id',
    tag: 'Purchase orders',
    summary: 'One purchase order with its lines',
    description: `The order (middleware id) with its lines in order. 404 when unknown. Reading it does not affect acknowledgements. ${LOOKUP_CHANNEL_RULE}`,
    example: {
      response: {
        id: 31,
        externalId: 'PO-5001',
        erpId: null,
        supplierExternalId: 'SUP-3',
        state: 'confirmed',
        orderDate: '2026-11-20',
        lines: [{ id: 901, position: 0, productExternalId: 'SKU-1001', quantity: 100, price: 3.1 }],
        data: { state: 'confirmed', order_date: '2026-11-20', lines: exampleInput.lines },
        context: 'erp_sync',
        pending: true,
        isNew: false,
        changedFields: ['lines'],
        revision: 3,
        previous: { lines: [{ product_external_id: 'SKU-1001', quantity: 80, price: 3.1 }] },
        createdAt: '2026-11-20T10:00:00.000Z',
        updatedAt: '2026-11-22T08:30:00.000Z',
        acknowledgedAt: '2026-11-21T16:00:00.000Z',
      },
    },
  },
];
