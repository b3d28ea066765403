import { CHANGE_LIST_RULES, LOOKUP_CHANNEL_RULE, batchAckRoute, changeListRoute } from '../changes/tracked.routes';
import type { RestRoute } from '../routing/route-table';
import { priceItemEntity } from './price-item.entity';

const exampleItem = {
  id: 301,
  pricelistExternalId: 'RETAIL-EUR',
  pricelistName: 'Retail EUR',
  productExternalId: 'SKU-1001',
  price: 7.9,
  previousPrice: 7.5,
  isNew: false,
  startDate: '2026-12-01',
  endDate: null,
  updatedAt: '2026-11-22T08:30:00.000Z',
  revision: 3,
};

export const pricelistRoutes: RestRoute[] = [
  changeListRoute(priceItemEntity, {
    summary: 'Price items whose price actually changed',
    description:
      'Price items come from the pricelists array of POST /api/v1/products ({pricelist_external_id, pricelist_name, price, start_date?, end_date?}; ' +
      'an entry is complete, a date left out is none). An item is listed when it is new or its price or dates changed; ' +
      'a re-sync with the same price is not listed again, and a pricelist rename alone is not a change. ' +
      'previousPrice is the price before the latest price change. Ordered by updatedAt then id. ' +
      `Acknowledge with POST /api${priceItemEntity.listPath}/batch-delete. ` +
      CHANGE_LIST_RULES,
    example: { query: '?limit=50', response: { payload: [exampleItem], meta: { total: 1, limit: 50, offset: 0 } } },
  }),
  batchAckRoute(priceItemEntity, 'Acknowledge price items'),
  {
    field: 'Query.pricelists',
    method: 'GET',
    path: '/v1/pricelists',
    tag: 'Pricelists',
    summary: 'Distinct pricelists',
    description:
      'Every pricelist seen in the price items: id (its external id), name (the latest) and itemCount; ordered by id; limit (default 50, max 500) and offset.',
    example: {
      response: { payload: [{ id: 'RETAIL-EUR', name: 'Retail EUR', itemCount: 1250 }], meta: { total: 1, limit: 50, offset: 0 } },
    },
  },
  {
    field: 'Query.pricelistItems',
    method: 'GET',
    path: '/v1/pricelists/:pricelistId/items',
    tag: 'Pricelists',
    summary: 'All items of one pricelist (full sync)',
    description:
      'Every price item of the pricelist, changed or not, ordered by id; limit (default 50, max 500) and offset. 404 for an unknown pricelist. Reading it does not affect acknowledgements. ' +
      LOOKUP_CHANNEL_RULE,
    example: { response: { payload: [exampleItem], meta: { total: 1250, limit: 50, offset: 0 } } },
  },
];
