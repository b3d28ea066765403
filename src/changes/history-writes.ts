import { TRACKED_ENTITIES, entityOfTable, type AnyTrackedEntity } from './tracked-entities';

/**
 * The write side of the change history (ADR 0031). Every push writes its history in the
 * statements it already runs, as data-modifying CTEs: no extra round trip, one history row per
 * record and revision, rolled back with a dry run or a failed push like everything else.
 */

/** The tracked entities whose pushes write a history (descriptor `history: true`; stocks keep none). */
export type HistoryEntity = Extract<AnyTrackedEntity, { history: true }>;
export const HISTORY_ENTITIES: readonly HistoryEntity[] = TRACKED_ENTITIES.filter((e): e is HistoryEntity => e.history);

export type HistoryTable = HistoryEntity['table'];
/** The entity type a history row names, as the API names it: product, sale_order… */
export type HistoryEntityType = HistoryEntity['entityType'];

/** The entity type the history rows of a table's records name. */
export const historyEntityType = (table: HistoryTable): HistoryEntityType => entityOfTable(table).entityType;

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
