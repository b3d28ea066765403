import { trackedRoutes } from '../changes/tracked.routes';
import type { RestRoute } from '../routing/route-table';
import { saleOrderEntity } from './sale-order.entity';

export const saleOrderRoutes: RestRoute[] = trackedRoutes(saleOrderEntity, {
  rules:
    'external_id (1-255 characters) and direction (inbound = from the ERP, outbound = to the ERP) are required; ' +
    'erp_id (integer), partner_external_id (string) and lines (array of objects) are checked; every other field is kept in data and diffed too.',
  listDescription: 'Query parameter direction (inbound or outbound) keeps one direction; any other value is a 400. ',
  example: {
    input: {
      external_id: 'SO-2001',
      direction: 'inbound',
      partner_external_id: 'CUST-7',
      lines: [{ product_external_id: 'SKU-1001', quantity: 2 }],
    },
    listQuery: '?direction=inbound&limit=50',
    record: {
      id: 7,
      externalId: 'SO-2001',
      erpId: null,
      direction: 'inbound',
      partnerExternalId: 'CUST-7',
      isNew: true,
      changedFields: ['direction', 'lines', 'partner_external_id'],
      context: 'erp_sync',
      data: { lines: [{ product_external_id: 'SKU-1001', quantity: 2 }] },
      updatedAt: '2026-11-22T08:30:00.000Z',
      revision: 3,
      previous: null,
    },
  },
});
