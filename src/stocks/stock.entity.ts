import type { TrackedEntity } from '../changes/tracked-entity';
import { entityOfTable } from '../changes/tracked-entities';
import { MAX_STOCKS_PER_REQUEST, stockInput } from './stock.input';

/** Stock entries, keyed by supplier and product; a change is a change of quantity. */
export const stockEntity = {
  ...entityOfTable('stocks'),
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
} as const satisfies TrackedEntity;
