import type { QueueDatabase } from './queue-database';

/** Deletes up to `limit` failures resolved before `cutoff`, oldest first; returns how many. */
export async function deleteResolvedFailures(db: QueueDatabase, cutoff: Date, limit: number): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ deleted: number }>>`
    WITH doomed AS (
      SELECT id FROM sync_failures
       WHERE status = 'resolved' AND resolved_at < ${cutoff}::timestamptz
       ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ), deleted AS (
      DELETE FROM sync_failures f USING doomed WHERE f.id = doomed.id AND f.status = 'resolved' RETURNING f.id
    )
    SELECT count(*)::int AS deleted FROM deleted`;
  return row?.deleted ?? 0;
}
