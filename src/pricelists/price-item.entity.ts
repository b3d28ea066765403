import type { TrackedEntity } from '../changes/tracked-entity';
import { entityOfTable } from '../changes/tracked-entities';

/** Price items: extracted from a product's pricelists, never pushed on their own. */
export const priceItemEntity = {
  ...entityOfTable('price_items'),
  tag: 'Pricelists',
  operations: {
    list: 'updatedPriceItems',
    ackMany: 'acknowledgePriceItems',
    pendingCount: 'priceItems',
  },
  listPath: '/v1/pricelists/updated',
} as const satisfies TrackedEntity;
