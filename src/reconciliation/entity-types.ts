import { validationFailed } from '../errors/app-error';
import type { TrackedTableName } from '../changes/tracked-table';

/** The entity types of resync and reconciliation, as API callers name them, and their tables. */
export const ENTITY_TABLES = {
  product: 'products',
  partner: 'partners',
  sale_order: 'sale_orders',
  purchase_order: 'purchase_orders',
  price_item: 'price_items',
  stock: 'stocks',
} as const satisfies Record<string, TrackedTableName>;

export type EntityType = keyof typeof ENTITY_TABLES;

export const ENTITY_TYPES = Object.keys(ENTITY_TABLES) as EntityType[];

/** Entity types whose records have an external id and a data object (what a digest covers). */
export const DIGESTED_TYPES: readonly EntityType[] = ['product', 'partner', 'sale_order', 'purchase_order'];

/** The entity type named by `value`, or a 400 naming `field` and the accepted values. */
export function entityTypeOf(value: string, field: string, accepted: readonly EntityType[] = ENTITY_TYPES): EntityType {
  if ((accepted as readonly string[]).includes(value)) return value as EntityType;
  throw validationFailed([{ field, message: `Unknown entity type "${value}"; one of ${accepted.join(', ')}` }]);
}
