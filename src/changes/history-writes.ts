import type { TrackedTableName } from './ledger';

/**
 * The write side of the change history (ADR 0031). Every push writes its history in the
 * statements it already runs, as data-modifying CTEs: no extra round trip, one history row per
 * record and revision, rolled back with a dry run or a failed push like everything else.
 */

/** The entity type a tracked table's history rows name, as the API names it; stocks keep none. */
export const HISTORY_ENTITY_TYPES = {
  products: 'product',
  partners: 'partner',
  sale_orders: 'sale_order',
  purchase_orders: 'purchase_order',
  price_items: 'price_item',
} as const satisfies Partial<Record<TrackedTableName, string>>;

export type HistoryTable = keyof typeof HISTORY_ENTITY_TYPES;
export type HistoryEntityType = (typeof HISTORY_ENTITY_TYPES)[HistoryTable];

/** Who pushed: the API token's (or admin account's) name; null when the push had no caller. */
export type PushedBy = string | null;

export const HISTORY_COLUMNS = '(entity_type, record_id, revision, token_name, changed_at, old_values, new_values)';

/**
 * `{field: value}` of a new tracked row, for the fields its first revision set: the data fields
 * and the columns that were sent (the keys of field_revisions). `{}` when nothing was sent.
 */
export function createdValuesSql(v: string, columns: readonly string[]): string {
  const all = columns.length > 0 ? `${v}.data || jsonb_build_object(${columns.map((c) => `'${c}', ${v}.${c}`).join(', ')})` : `${v}.data`;
  return `COALESCE((SELECT jsonb_object_agg(w.key, w.value) FROM jsonb_each(${all}) AS w WHERE ${v}.field_revisions ? w.key), '{}'::jsonb)`;
}
