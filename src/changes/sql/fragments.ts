import { scopeColumnOf, type TrackedTableName } from '../tracked-entities';
import { column, empty, join, sql, trackedTable, trackedTableLiteral, type Sql } from './sql';

/**
 * Fragments the ledger's statements share (ADRs 0002, 0030, 0045). `row` is the alias of the
 * tracked table's row in the enclosing statement (`sql\`t\``); `channelId` a channel other than
 * default, always a parameter.
 */

/** The row alias most statements give the tracked table. */
export const T = sql`t`;

/** A table's scope (what its change list may be filtered by and is counted per), as text. */
export function scopeSql(table: TrackedTableName, row: Sql = T): Sql {
  const scope = scopeColumnOf(table);
  return scope ? sql`${row}.${column(scope)}::text` : sql`''::text`;
}

/** `(row.updated_at, row.id)` lies above the channel's cursor. */
export function aboveCursorSql(table: TrackedTableName, row: Sql, channelId: number): Sql {
  const cursor = sql`FROM channel_cursors WHERE channel_id = ${channelId}::int AND table_name = ${trackedTableLiteral(table)}`;
  return sql`(${row}.updated_at, ${row}.id) > ((SELECT stamp ${cursor}), (SELECT record_id ${cursor}))`;
}

/** Joins the channel's acknowledgement of each row as `a`. */
export function channelAckJoinSql(table: TrackedTableName, row: Sql, channelId: number): Sql {
  return sql`LEFT JOIN channel_acks AS a ON a.channel_id = ${channelId}::int AND a.table_name = ${trackedTableLiteral(table)} AND a.record_id = ${row}.id`;
}

/**
 * Whether `row`, its acknowledgement joined as `a` (channelAckJoinSql), is pending on the channel:
 * above the cursor and not acknowledged at its current revision.
 */
export function pendingJoinedSql(table: TrackedTableName, row: Sql, channelId: number): Sql {
  return sql`(${aboveCursorSql(table, row, channelId)} AND (a.acked_revision IS NULL OR a.acked_revision < ${row}.revision))`;
}

/**
 * The first change pending on a channel in `table`, `columns` of it (of the row `t`): an index scan
 * that stops there, from the cursor, or on channel default (`channelId` null) its partial index on
 * `pending`.
 */
export function firstPendingSql(table: TrackedTableName, channelId: number | null, columns: Sql): Sql {
  if (channelId === null)
    return sql`SELECT ${columns} FROM ${trackedTable(table)} AS t WHERE t.pending ORDER BY t.updated_at, t.id LIMIT 1`;
  return sql`SELECT ${columns} FROM ${trackedTable(table)} AS t ${channelAckJoinSql(table, T, channelId)}
           WHERE ${pendingJoinedSql(table, T, channelId)} ORDER BY t.updated_at, t.id LIMIT 1`;
}

/**
 * The `updated_at` of the oldest change pending on a channel (null: default) in `table`, as a
 * scalar subquery (NULL when none): the first record of its change list.
 */
export function oldestPendingSql(table: TrackedTableName, channelId: number | null): Sql {
  return sql`(${firstPendingSql(table, channelId, sql`t.updated_at`)})`;
}

/**
 * Whether `row` is pending for the channel, as a condition of its own (filters, counts): above the
 * cursor and no acknowledgement of its current revision.
 */
export function channelPendingSql(table: TrackedTableName, row: Sql, channelId: number): Sql {
  const acked = sql`SELECT 1 FROM channel_acks AS pa WHERE pa.channel_id = ${channelId}::int AND pa.table_name = ${trackedTableLiteral(table)} AND pa.record_id = ${row}.id`;
  return sql`(${aboveCursorSql(table, row, channelId)} AND NOT EXISTS (${acked} AND pa.acked_revision >= ${row}.revision))`;
}

/** Fields changed after `threshold`, sorted; used when changing and when acknowledging. */
export function pendingFieldsSql(fieldRevisions: Sql, threshold: Sql): Sql {
  return sql`ARRAY(SELECT f.key FROM jsonb_each_text(${fieldRevisions}) AS f WHERE f.value::int > ${threshold} ORDER BY f.key)`;
}

/**
 * The pending count of `table` on a channel (null: default), restricted to `filter`, as a scalar
 * subquery, when the counters can answer it (ADR 0030): no filter, or a filter on the table's
 * scope column alone. Undefined otherwise (the caller counts rows).
 */
export function pendingCountSql(table: TrackedTableName, channelId: number | null, filter: Record<string, string>): Sql | undefined {
  const columns = Object.keys(filter);
  if (columns.length > 1 || (columns.length === 1 && columns[0] !== scopeColumnOf(table))) return undefined;
  const scope = columns.length === 1 ? sql` AND scope = ${filter[columns[0]!]}::text` : empty;
  if (channelId === null)
    return sql`(SELECT COALESCE(sum(delta), 0)::int FROM pending_count_deltas WHERE table_name = ${trackedTableLiteral(table)}${scope})`;
  return sql`(SELECT COALESCE(sum(delta), 0)::int FROM channel_pending_deltas WHERE channel_id = ${channelId}::int AND table_name = ${trackedTableLiteral(table)}${scope})`;
}

/** The columns of a change_history row, in the order the pushes' CTEs write them. */
export const HISTORY_COLUMNS = sql`(entity_type, record_id, revision, token_name, changed_at, old_values, new_values)`;

/**
 * `{field: value}` of a new tracked row `v`, for the fields its first revision set: the data fields
 * and the columns that were sent (the keys of field_revisions). `{}` when nothing was sent.
 */
export function createdValuesSql(v: Sql, columns: readonly string[]): Sql {
  const all =
    columns.length > 0
      ? sql`${v}.data || jsonb_build_object(${join(
          columns.map((c) => sql`${c}::text, ${v}.${column(c)}`),
          ', ',
        )})`
      : sql`${v}.data`;
  return sql`COALESCE((SELECT jsonb_object_agg(w.key, w.value) FROM jsonb_each(${all}) AS w WHERE ${v}.field_revisions ? w.key), '{}'::jsonb)`;
}
