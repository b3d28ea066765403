import type { QueueDatabase } from './queue-database';

/**
 * Deletes up to `limit` change-history entries (ADR 0031) older than `cutoff`; returns how many.
 * Entries are only ever inserted and deleted, and changed_at has a BRIN index (rows arrive in time
 * order), so finding the expired ones costs little however large the table is.
 */
export async function deleteExpiredHistory(db: QueueDatabase, cutoff: Date, limit: number): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ deleted: number }>>`
    WITH doomed AS (
      SELECT id FROM change_history WHERE changed_at < ${cutoff}::timestamptz LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ), deleted AS (
      DELETE FROM change_history h USING doomed WHERE h.id = doomed.id RETURNING h.id
    )
    SELECT count(*)::int AS deleted FROM deleted`;
  return row?.deleted ?? 0;
}
