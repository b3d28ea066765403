import { takeChangeClock } from './change-clock';
import { trackedTable, type SqlRunner, type TrackedTableName } from './ledger';

/**
 * Net-state replay (ADR 0029): marks records pending again with every field they have in
 * changedFields, as if each field had just changed. The revision moves on (so an acknowledgement
 * of an earlier listing covers nothing of it), the change clock is taken (so a client paging
 * with since sees it), and is_new and acked_revision stay as they are.
 */

/** Which rows to resync; `where` is SQL of this module with $n parameters from `params`. */
export type ResyncSelection = { where: string; params: unknown[] };

/** Every field the record ever had (the keys of field_revisions) now changed at the new revision. */
const REPLAY_SET = `revision = t.revision + 1,
        field_revisions = COALESCE((SELECT jsonb_object_agg(f.key, t.revision + 1) FROM jsonb_object_keys(t.field_revisions) AS f(key)), '{}'::jsonb),
        changed_fields = ARRAY(SELECT f.key FROM jsonb_object_keys(t.field_revisions) AS f(key) ORDER BY f.key),
        pending = true`;

/**
 * Replays the selected rows of one table inside the caller's transaction; returns how many.
 * The lock order follows each table's writers: tables written by upsertTracked lock their rows
 * before the clock; stocks and price items take the clock before their upsert locks rows.
 */
export async function replayRows(tx: SqlRunner, table: TrackedTableName, selection: ResyncSelection): Promise<number> {
  const { where, params } = selection;
  const clockFirst = table === 'stocks' || table === 'price_items';
  if (clockFirst) {
    const stamp = await takeChangeClock(tx, table);
    return tx.$executeRawUnsafe(
      `UPDATE ${trackedTable(table)} AS t SET ${REPLAY_SET}, updated_at = $${params.length + 1}::timestamptz WHERE ${where}`,
      ...params,
      stamp,
    );
  }
  const locked = await tx.$queryRawUnsafe<Array<{ id: number }>>(
    `SELECT t.id FROM ${trackedTable(table)} AS t WHERE ${where} ORDER BY t.id FOR UPDATE`,
    ...params,
  );
  if (locked.length === 0) return 0;
  const stamp = await takeChangeClock(tx, table);
  return tx.$executeRawUnsafe(
    `UPDATE ${trackedTable(table)} AS t SET ${REPLAY_SET}, updated_at = $2::timestamptz
      WHERE t.id IN (SELECT (jsonb_array_elements_text($1::jsonb))::int)`,
    JSON.stringify(locked.map((r) => r.id)),
    stamp,
  );
}

/** Counts the rows a replay would touch (the console's preview). */
export async function countRows(db: SqlRunner, table: TrackedTableName, selection: ResyncSelection): Promise<number> {
  const rows = await db.$queryRawUnsafe<Array<{ n: number }>>(
    `SELECT count(*)::int AS n FROM ${trackedTable(table)} AS t WHERE ${selection.where}`,
    ...selection.params,
  );
  return rows[0]?.n ?? 0;
}
