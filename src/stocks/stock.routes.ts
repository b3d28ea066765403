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
import { stockEntity } from './stock.entity';

const exampleEntry = {
  id: 88,
  supplierExternalId: 'SUP-3',
  productExternalId: 'SKU-1001',
  quantity: 40,
  previousQuantity: 52,
  purchasePrice: 3.1,
  suggestedSalePrice: 7.5,
  isQuantityChanged: true,
  updatedAt: '2026-11-22T08:30:00.000Z',
  revision: 3,
};
const page = (total: number) => ({ payload: [exampleEntry], meta: { total, limit: 50, offset: 0 } });

export const stockRoutes: RestRoute[] = [
  pushRoute(stockEntity, {
    listOnly: true,
    summary: 'Bulk upsert of stock entries from the ERP',
    description:
      `Body {"stocks": [...]} with up to ${stockEntity.push.maxItems.toLocaleString('en')} entries (more is 413), keyed by (supplier_external_id, product_external_id); ` +
      'quantity (number) is required, purchase_price and suggested_sale_price (numbers >= 0) are optional: left out keeps the stored value, null clears it. ' +
      'One set-based statement per request. isQuantityChanged becomes true when an entry is new or its quantity differs from the stored one; ' +
      'a price-only change updates the prices without flagging. created and updated count distinct entries; an identical entry is neither. ' +
      'Bad entries are listed in errors ({index, external_id: null, field, message, code}); the others are stored. ' +
      `${SOURCE_TIME_RULE} ${DRY_RUN_RULE} An entry repeated in one list counts once, at its last position; a stock entry's external_id in records is "supplier_external_id/product_external_id".`,
    example: {
      request: { stocks: [{ supplier_external_id: 'SUP-3', product_external_id: 'SKU-1001', quantity: 40, purchase_price: 3.1 }] },
      response: { ...SYNC_RESULT_EXAMPLE, created: 0, updated: 1 },
    },
  }),
  changeListRoute(stockEntity, {
    summary: 'Stock entries whose quantity changed (delta query)',
    description:
      `Entries with isQuantityChanged, ordered by updatedAt then id. Acknowledge with POST /api${stockEntity.listPath}/batch-delete, which clears the flag. ` +
      CHANGE_LIST_RULES,
    example: { query: '?limit=500', response: page(1) },
  }),
  batchAckRoute(stockEntity, 'Acknowledge stock changes'),
  {
    field: 'Query.stocksBySupplier',
    method: 'GET',
    path: '/v1/stocks/by-supplier/:supplierId',
    pathFilters: true,
    tag: 'Stocks',
    summary: 'All stock of one supplier',
    description:
      'Every entry of the supplier (external id), ordered by product external id; limit (default 50, max 500) and offset. An unknown supplier gives an empty page. ' +
      LOOKUP_CHANNEL_RULE,
    example: { response: page(1840) },
  },
  {
    field: 'Query.stocksByProduct',
    method: 'GET',
    path: '/v1/stocks/by-product/:productId',
    pathFilters: true,
    tag: 'Stocks',
    summary: 'Stock of all suppliers for one product',
    description:
      'Every entry of the product (external id), ordered by supplier external id; limit (default 50, max 500) and offset. An unknown product gives an empty page. ' +
      LOOKUP_CHANNEL_RULE,
    example: { response: page(3) },
  },
  {
    field: 'Query.stockLookup',
    method: 'GET',
    path: '/v1/stocks/lookup',
    extraErrors: ['NOT_FOUND'],
    tag: 'Stocks',
    summary: 'One stock entry',
    description:
      'Query parameters supplier_id and product_id (external ids), both required (400 when missing). 404 when there is no such entry. ' +
      LOOKUP_CHANNEL_RULE,
    example: { query: '?supplier_id=SUP-3&product_id=SKU-1001', response: exampleEntry },
  },
];
