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
