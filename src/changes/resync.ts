import { takeChangeClock } from './change-clock';
import type { SqlRunner, TrackedTableName } from './ledger';
import { countRowsToReplay } from './sql/count-rows-to-replay';
import { lockRowsToReplay } from './sql/lock-rows-to-replay';
import { moveChannelAcksOverReplay } from './sql/move-channel-acks-over-replay';
import { replayOnDefault } from './sql/replay-on-default';
import { resetChannelAcks } from './sql/reset-channel-acks';
import { restampRowsForChannel } from './sql/restamp-rows-for-channel';
import type { Sql } from './sql/sql';

/**
 * Net-state replay (ADR 0029): marks records pending again with every field they have in
 * changedFields, as if each field had just changed. The revision moves on (so an acknowledgement
 * of an earlier listing covers nothing of it), the change clock is taken (so a client paging
 * with since sees it), and is_new and acked_revision stay as they are.
 */

/** Which rows to resync: a condition on the row `t`. */
export type ResyncSelection = { where: Sql };

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
  const locked = await lockRowsToReplay(tx, table, selection.where);
  if (locked.length === 0) return 0;
  stamp ??= await takeChangeClock(tx, table);
  const ids = JSON.stringify(locked.map((r) => r.id));
  if (channelId !== null) return replayOnChannel(tx, table, ids, stamp, channelId);
  const replayed = await replayOnDefault(tx, table, ids, stamp);
  await moveChannelAcksOverReplay(tx, table, ids);
  return replayed;
}

/**
 * The replay on a channel other than default: its acknowledgements of the records go back to 0
 * (every field changed since, as on default; a record it never acknowledged stays new), the
 * listings of its tokens are dropped (an ack by id of an earlier listing covers nothing of it), and
 * the records get a new stamp. The revision stays, so no other channel sees anything.
 */
async function replayOnChannel(tx: SqlRunner, table: TrackedTableName, ids: string, stamp: Date, channelId: number): Promise<number> {
  await resetChannelAcks(tx, table, ids, channelId);
  return restampRowsForChannel(tx, table, ids, stamp, channelId);
}

/** Counts the rows a replay would touch (the console's preview). */
export async function countRows(db: SqlRunner, table: TrackedTableName, selection: ResyncSelection): Promise<number> {
  return countRowsToReplay(db, table, selection.where);
}
