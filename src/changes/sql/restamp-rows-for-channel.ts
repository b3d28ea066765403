import type { SqlRunner } from '../ledger-types';
import type { TrackedTableName } from '../tracked-entities';
import { sql, trackedTable } from './sql';

/**
 * A replay on a channel other than default, its records `ids` (a JSON array): a new stamp, and the
 * listings of the channel's tokens dropped (an ack by id of an earlier listing covers nothing of
 * it). The revision stays, so no other channel sees anything. Returns how many rows it replayed.
 */
export async function restampRowsForChannel(
  tx: SqlRunner,
  table: TrackedTableName,
  ids: string,
  stamp: Date,
  channelId: number,
): Promise<number> {
  return tx.$executeRaw(sql`
    UPDATE ${trackedTable(table)} AS t
       SET updated_at = ${stamp}::timestamptz,
           listed_revisions = t.listed_revisions - ARRAY(SELECT 'token:' || left(token_hash, 32) FROM api_tokens WHERE channel_id = ${channelId}::int)
     WHERE t.id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::int)`);
}
