import { trackedRoutes } from '../changes/tracked.routes';
import type { RestRoute } from '../routing/route-table';
import { productEntity } from './product.entity';

export const productRoutes: RestRoute[] = trackedRoutes(productEntity, {
  rules:
    'external_id is required (1-255 characters); erp_id (integer), name, description (strings) and price (number >= 0) are checked; ' +
    'every other field is kept in data and diffed too.',
  example: {
    input: { external_id: 'SKU-1001', erp_id: 1001, name: 'Espresso cup', price: 7.5 },
    record: {
      id: 42,
      externalId: 'SKU-1001',
      erpId: 1001,
      isNew: false,
      changedFields: ['price'],
      previous: { price: 6.9 },
      context: 'erp_sync',
      data: { name: 'Espresso cup', description: 'Porcelain, 80 ml', price: 7.5 },
      updatedAt: '2026-11-22T08:30:00.000Z',
      revision: 3,
    },
  },
});
