import type { Logger } from 'pino';
import { TRACKED_TABLES, type TrackedTableName } from './tracked-entities';
import type { SqlRunner } from './ledger';
import { compactChannelPendingCounts } from './channel-counts';

/**
 * Pending counts in O(1) (docs/adr/0030). Statement-level triggers on every tracked table append
 * the net change of its pending rows to `pending_count_deltas` in the writing transaction, so
 * sum(delta) equals count(*) WHERE pending in every snapshot, whichever statement wrote the rows
 * (pushes, acknowledgements, resync, anything later). Writers only append: no counter row for
 * concurrent pushes and acks to queue on. The compaction below keeps the sum over a few rows.
 */

/** Records with pending changes in one table. */
export async function countPending(db: SqlRunner, table: TrackedTableName): Promise<number> {
  const rows = await db.$queryRaw<Array<{ n: number }>>`
    SELECT COALESCE(sum(delta), 0)::int AS n FROM pending_count_deltas WHERE table_name = ${table}`;
  return rows[0]?.n ?? 0;
}

/** Records with pending changes per tracked table, in one statement (every table listed, 0 included). */
export async function countPendingByTable(db: SqlRunner): Promise<Record<TrackedTableName, number>> {
  const rows = await db.$queryRaw<Array<{ table_name: TrackedTableName; n: number }>>`
    SELECT table_name, sum(delta)::int AS n FROM pending_count_deltas GROUP BY table_name`;
  const counts = Object.fromEntries(TRACKED_TABLES.map((t) => [t, 0])) as Record<TrackedTableName, number>;
  for (const row of rows) counts[row.table_name] = row.n;
  return counts;
}

/**
 * Folds the deltas into one row per table and scope, in one statement: the rows it deletes and the
 * sums it inserts commit together, so every snapshot sees the same totals before and after. Rows
 * appended meanwhile by uncommitted writers are not visible to it and stay. Two compactions at
 * once are safe too: a row the other one deleted first is skipped by this DELETE and so is not in
 * its RETURNING, and each reinserts the sum of what it deleted. Nothing is written when there is
 * nothing to fold (an idle store stays idle). Returns the rows folded.
 */
export async function compactPendingCounts(db: SqlRunner): Promise<number> {
  const rows = await db.$queryRaw<Array<{ folded: number }>>`
    WITH gone AS (
       DELETE FROM pending_count_deltas
        WHERE (SELECT count(*) FROM pending_count_deltas) > (SELECT count(DISTINCT (table_name, scope)) FROM pending_count_deltas)
       RETURNING table_name, scope, delta
     ), folded AS (
       INSERT INTO pending_count_deltas (table_name, scope, delta)
       SELECT table_name, scope, sum(delta) FROM gone GROUP BY table_name, scope HAVING sum(delta) <> 0
     )
     SELECT count(*)::int AS folded FROM gone`;
  return rows[0]?.folded ?? 0;
}

export const PENDING_COUNT_COMPACTION_MS = 5_000;

/** Compacts every `intervalMs` until stopped; a failed run is logged and tried again next time. */
export function startPendingCountCompaction(
  db: SqlRunner,
  options: { logger?: Logger; intervalMs?: number } = {},
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(() => compactPendingCounts(db))
      .then(() => compactChannelPendingCounts(db))
      .catch((error: unknown) => options.logger?.warn({ err: error }, 'pending count compaction failed; trying again later'));
  }, options.intervalMs ?? PENDING_COUNT_COMPACTION_MS);
  timer.unref(); // compaction alone never keeps a process alive
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
