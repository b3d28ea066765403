import type { SqlRunner } from './ledger';
import type { TrackedTableName } from './tracked-entities';

/**
 * Pending counts of the channels other than default (ADR 0045), kept as channel default's are
 * (ADR 0030): the tracked tables' triggers and the channels' acknowledgements append deltas to
 * `channel_pending_deltas`, so sum(delta) per channel, table and scope is the exact count in every
 * snapshot, read in O(1) after compaction.
 */

/** Records of `table` pending for channel `channelId` (other than default), from its counters. */
export async function countPendingOnChannel(db: SqlRunner, table: TrackedTableName, channelId: number): Promise<number> {
  const rows = await db.$queryRaw<Array<{ n: number }>>`
    SELECT COALESCE(sum(delta), 0)::int AS n FROM channel_pending_deltas WHERE channel_id = ${channelId}::int AND table_name = ${table}`;
  return rows[0]?.n ?? 0;
}

/** Records pending per channel and table, for every channel other than default (metrics, console). */
export async function countPendingByChannel(
  db: SqlRunner,
): Promise<Array<{ channel_id: number; table_name: TrackedTableName; n: number }>> {
  return db.$queryRaw`
    SELECT channel_id, table_name, sum(delta)::int AS n FROM channel_pending_deltas GROUP BY channel_id, table_name`;
}

/** Folds the channels' deltas into one row per key; the same reasoning as compactPendingCounts. */
export async function compactChannelPendingCounts(db: SqlRunner): Promise<number> {
  const rows = await db.$queryRaw<Array<{ folded: number }>>`
    WITH gone AS (
       DELETE FROM channel_pending_deltas
        WHERE (SELECT count(*) FROM channel_pending_deltas)
              > (SELECT count(DISTINCT (channel_id, table_name, scope)) FROM channel_pending_deltas)
       RETURNING channel_id, table_name, scope, delta
     ), folded AS (
       INSERT INTO channel_pending_deltas (channel_id, table_name, scope, delta)
       SELECT channel_id, table_name, scope, sum(delta) FROM gone GROUP BY channel_id, table_name, scope HAVING sum(delta) <> 0
     )
     SELECT count(*)::int AS folded FROM gone`;
  return rows[0]?.folded ?? 0;
}
