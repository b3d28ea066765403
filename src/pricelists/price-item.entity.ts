import type { TrackedEntity } from '../changes/tracked-entity';

/** Price items: extracted from a product's pricelists, never pushed on their own. */
export const priceItemEntity = {
  table: 'price_items',
  entityType: 'price_item',
  typeName: 'PriceItem',
  noun: { one: 'price item', many: 'price items' },
  tag: 'Pricelists',
  operations: {
    list: 'updatedPriceItems',
    ackMany: 'acknowledgePriceItems',
    pendingCount: 'priceItems',
  },
  listPath: '/v1/pricelists/updated',
  changeColumns: [
    'pricelist_external_id',
    'pricelist_name',
    'product_external_id',
    'price',
    'previous_price',
    'is_new',
    'start_date',
    'end_date',
    'updated_at',
  ],
  keyed: false,
  history: true,
} as const satisfies TrackedEntity;
