import type { QueueDatabase } from './queue-database';

/**
 * Deletes up to `limit` items completed before `cutoff`, oldest first (their attempt log goes by
 * the foreign key's cascade); returns how many. Rows are taken FOR UPDATE SKIP LOCKED and their
 * status checked again under the lock, so a resend racing the delete either wins or finds it gone.
 */
export async function deleteCompletedItems(db: QueueDatabase, cutoff: Date, limit: number): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ deleted: number }>>`
    WITH doomed AS (
      SELECT id FROM outbound_queue_items
       WHERE status = 'completed' AND completed_at < ${cutoff}::timestamptz
       ORDER BY completed_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ), deleted AS (
      DELETE FROM outbound_queue_items q USING doomed WHERE q.id = doomed.id AND q.status = 'completed' RETURNING q.id
    )
    SELECT count(*)::int AS deleted FROM deleted`;
  return row?.deleted ?? 0;
}
