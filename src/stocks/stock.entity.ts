import type { TrackedEntity } from '../changes/tracked-entity';
import { MAX_STOCKS_PER_REQUEST, stockInput } from './stock.input';

/** Stock entries, keyed by supplier and product; a change is a change of quantity. */
export const stockEntity = {
  table: 'stocks',
  entityType: 'stock',
  typeName: 'Stock',
  noun: { one: 'stock entry', many: 'stock entries' },
  tag: 'Stocks',
  operations: {
    sync: 'syncStocks',
    list: 'changedStocks',
    ackMany: 'acknowledgeStocks',
    pendingCount: 'stocks',
  },
  listPath: '/v1/stocks/changed',
  push: {
    path: '/v1/stocks',
    listArg: 'stocks',
    maxItems: MAX_STOCKS_PER_REQUEST,
    input: { name: 'StockInput', schema: stockInput },
    context: false,
  },
  changeColumns: [
    'supplier_external_id',
    'product_external_id',
    'quantity',
    'previous_quantity',
    'purchase_price',
    'suggested_sale_price',
    'pending',
    'updated_at',
  ],
  keyed: false,
  // A history row per stock change would outgrow the stocks (volume): previousQuantity is their past value.
  history: false,
} as const satisfies TrackedEntity;
