import type { QueueDatabase } from './queue-database';

/**
 * Hands deliveries left `processing` by a process that is gone back to the queue, due at once;
 * returns how many. Only for the embedded store: its data-directory lock makes this process the
 * only one, so no claim can be alive at start and waiting out the lease would only delay them. The
 * attempt the dead process made stays counted (it may have reached the receiver, which then sees
 * the same webhook-id again: at least once, never lost).
 */
export async function reclaimAbandonedDeliveries(db: QueueDatabase): Promise<number> {
  const rows = await db.$queryRaw<Array<{ id: number }>>`
    UPDATE outbound_queue_items
       SET status = 'pending', lease_token = NULL, lease_expires_at = NULL,
           next_attempt_at = LEAST(next_attempt_at, now()), updated_at = now()
     WHERE status = 'processing'
     RETURNING id`;
  return rows.length;
}
