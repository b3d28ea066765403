import { takeChangeClock } from './change-clock';
import type { SqlRunner, TrackedTableName } from './ledger';
import { scopeSql } from './sql/fragments';
import { sql, trackedTable, trackedTableLiteral, type Sql } from './sql/sql';

/**
 * Net-state replay (ADR 0029): marks records pending again with every field they have in
 * changedFields, as if each field had just changed. The revision moves on (so an acknowledgement
 * of an earlier listing covers nothing of it), the change clock is taken (so a client paging
 * with since sees it), and is_new and acked_revision stay as they are.
 */

/** Which rows to resync: a condition on the row `t`. */
export type ResyncSelection = { where: Sql };

/** Every field the record ever had (the keys of field_revisions) now changed at the new revision. */
const REPLAY_SET = sql`revision = t.revision + 1,
        field_revisions = COALESCE((SELECT jsonb_object_agg(f.key, t.revision + 1) FROM jsonb_object_keys(t.field_revisions) AS f(key)), '{}'::jsonb),
        changed_fields = ARRAY(SELECT f.key FROM jsonb_object_keys(t.field_revisions) AS f(key) ORDER BY f.key),
        pending = true`;

/**
 * Replays the selected rows of one table inside the caller's transaction; returns how many.
 * The lock order follows each table's writers: tables written by upsertTracked lock their rows
 * before the clock; stocks and price items take the clock before their upsert locks rows.
 */
export async function replayRows(
  tx: SqlRunner,
  table: TrackedTableName,
  selection: ResyncSelection,
  channelId: number | null = null,
): Promise<number> {
  const clockFirst = table === 'stocks' || table === 'price_items';
  let stamp = clockFirst ? await takeChangeClock(tx, table) : undefined;
  const locked = await tx.$queryRaw<Array<{ id: number }>>(
    sql`SELECT t.id FROM ${trackedTable(table)} AS t WHERE ${selection.where} ORDER BY t.id FOR UPDATE`,
  );
  if (locked.length === 0) return 0;
  stamp ??= await takeChangeClock(tx, table);
  const ids = JSON.stringify(locked.map((r) => r.id));
  if (channelId !== null) return replayOnChannel(tx, table, ids, stamp, channelId);
  const replayed = await tx.$executeRaw(sql`
    UPDATE ${trackedTable(table)} AS t SET ${REPLAY_SET}, updated_at = ${stamp}::timestamptz
     WHERE t.id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::int)`);
  // The statement's trigger counted each record pending for the channels that had acknowledged
  // its old revision; they did not ask for the replay: their acknowledgement moves on, uncounted.
  await tx.$executeRaw(sql`
    WITH moved AS (
       UPDATE channel_acks AS a SET acked_revision = t.revision
         FROM ${trackedTable(table)} AS t
        WHERE a.table_name = ${trackedTableLiteral(table)} AND a.record_id = t.id AND a.acked_revision = t.revision - 1
          AND t.id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::int)
       RETURNING a.channel_id, ${scopeSql(table)} AS scope
     )
     INSERT INTO channel_pending_deltas (channel_id, table_name, scope, delta)
     SELECT channel_id, ${trackedTableLiteral(table)}, scope, -count(*) FROM moved GROUP BY channel_id, scope`);
  return replayed;
}

/**
 * The replay on a channel other than default: its acknowledgements of the records go back to 0
 * (every field changed since, as on default; a record it never acknowledged stays new), the
 * listings of its tokens are dropped (an ack by id of an earlier listing covers nothing of it), and
 * the records get a new stamp. The revision stays, so no other channel sees anything.
 */
async function replayOnChannel(tx: SqlRunner, table: TrackedTableName, ids: string, stamp: Date, channelId: number): Promise<number> {
  const name = trackedTableLiteral(table);
  await tx.$executeRaw(sql`
    WITH before AS MATERIALIZED (
       SELECT a.record_id, ${scopeSql(table)} AS scope, a.acked_revision >= t.revision AS was_acknowledged
         FROM channel_acks AS a JOIN ${trackedTable(table)} AS t ON t.id = a.record_id
        WHERE a.channel_id = ${channelId}::int AND a.table_name = ${name} AND t.id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::int)
     ), reset AS (
       UPDATE channel_acks SET acked_revision = 0
        WHERE channel_id = ${channelId}::int AND table_name = ${name} AND record_id IN (SELECT record_id FROM before)
     )
     INSERT INTO channel_pending_deltas (channel_id, table_name, scope, delta)
     SELECT ${channelId}::int, ${name}, scope, count(*) FROM before WHERE was_acknowledged GROUP BY scope`);
  return tx.$executeRaw(sql`
    UPDATE ${trackedTable(table)} AS t
       SET updated_at = ${stamp}::timestamptz,
           listed_revisions = t.listed_revisions - ARRAY(SELECT 'token:' || left(token_hash, 32) FROM api_tokens WHERE channel_id = ${channelId}::int)
     WHERE t.id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::int)`);
}

/** Counts the rows a replay would touch (the console's preview). */
export async function countRows(db: SqlRunner, table: TrackedTableName, selection: ResyncSelection): Promise<number> {
  const rows = await db.$queryRaw<Array<{ n: number }>>(
    sql`SELECT count(*)::int AS n FROM ${trackedTable(table)} AS t WHERE ${selection.where}`,
  );
  return rows[0]?.n ?? 0;
}
