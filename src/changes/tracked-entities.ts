import { partnerEntity } from '../partners/partner.entity';
import { priceItemEntity } from '../pricelists/price-item.entity';
import { productEntity } from '../products/product.entity';
import { purchaseOrderEntity } from '../purchase-orders/purchase-order.entity';
import { saleOrderEntity } from '../sale-orders/sale-order.entity';
import { stockEntity } from '../stocks/stock.entity';

/**
 * Every tracked entity, in the order APIs list them (ADR 0036). A seventh entity is its
 * descriptor added here; the table union, pending counts, metrics, resync and reconciliation
 * follow from this list.
 */
export const TRACKED_ENTITIES = [productEntity, partnerEntity, saleOrderEntity, purchaseOrderEntity, priceItemEntity, stockEntity] as const;

export type AnyTrackedEntity = (typeof TRACKED_ENTITIES)[number];

/** Table names are constants of the code, never input. */
export type TrackedTableName = AnyTrackedEntity['table'];

/** products, partners… in registry order. */
export const TRACKED_TABLES: readonly TrackedTableName[] = TRACKED_ENTITIES.map((e) => e.table);

/** The descriptor of a table. */
export const entityOfTable = <T extends TrackedTableName>(table: T): Extract<AnyTrackedEntity, { table: T }> =>
  TRACKED_ENTITIES.find((e): e is Extract<AnyTrackedEntity, { table: T }> => e.table === table)!;

/** Entities whose records carry an external id and a data object. */
export type KeyedEntity = Extract<AnyTrackedEntity, { keyed: true }>;
export const KEYED_ENTITIES: readonly KeyedEntity[] = TRACKED_ENTITIES.filter((e): e is KeyedEntity => e.keyed);

/**
 * The quoted identifier of a tracked table: the one way a table name enters SQL text (ADR 0036).
 * Statements that splice it are the only `$queryRawUnsafe`/`$executeRawUnsafe` calls; every other
 * statement is a tagged `$queryRaw`. Typed to the tracked-table union, and checked at run time too.
 */
export function trackedTable(name: TrackedTableName): string {
  if (!TRACKED_TABLES.includes(name)) throw new Error(`Not a tracked table: ${String(name)}`);
  return `"${name}"`;
}

/** The column `table`'s change list may be filtered by and its pending counts are kept per value of (sale orders: direction). */
export function scopeColumnOf(table: TrackedTableName): string | undefined {
  const entity = entityOfTable(table);
  return 'scopeColumn' in entity ? entity.scopeColumn : undefined;
}
