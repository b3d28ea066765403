import type { QueueDatabase } from './queue-database';

/** A claimed item with its configuration (the configuration's columns are null when it was removed). */
export type ClaimedItem = {
  id: number;
  attempts: number;
  max_attempts: number;
  schedule_started_at: Date;
  message_id: string;
  payload: Record<string, unknown>;
  url: string | null;
  secret_encrypted: string | null;
  active: boolean | null;
};

/**
 * Claims due items (pending and due, or processing under an expired lease) together with their
 * configuration, FOR UPDATE SKIP LOCKED so that concurrent workers never claim one item twice.
 * `exclude` holds the items this worker still holds: a lease that ran out during an outage is
 * still its own to finish.
 *
 * Each kind is found by an ordered index scan of its own, not one bitmap scan of both indexes (what
 * an OR of the two gives): every claim and every result moves an item to another status, leaving
 * index entries for dead row versions behind, and only a plain index scan marks those dead as it
 * passes them. A bitmap scan visits every one of them again, claim after claim, until vacuum runs:
 * thousands of heap pages per claim after a few thousand deliveries (issue 18). The oldest due
 * items of either kind are taken, `limit` at most; the few rows locked beyond it are let go when
 * the statement ends.
 */
export async function claimDueItems(
  db: QueueDatabase,
  claim: { now: Date; token: string; leaseUntil: Date; limit: number; exclude: number[] },
): Promise<ClaimedItem[]> {
  const { now, token, leaseUntil, limit, exclude } = claim;
  return db.$queryRaw<ClaimedItem[]>`
    WITH pending AS (
      SELECT o.id, o.next_attempt_at, o.webhook_config_id
        FROM outbound_queue_items o
       WHERE o.status = 'pending' AND o.next_attempt_at <= ${now}::timestamptz AND NOT (o.id = ANY(${exclude}::int[]))
       ORDER BY o.next_attempt_at, o.id
       LIMIT ${limit}
         FOR UPDATE OF o SKIP LOCKED
    ), expired AS (
      SELECT o.id, o.next_attempt_at, o.webhook_config_id
        FROM outbound_queue_items o
       WHERE o.status = 'processing' AND o.lease_expires_at < ${now}::timestamptz AND NOT (o.id = ANY(${exclude}::int[]))
       ORDER BY o.lease_expires_at
       LIMIT ${limit}
         FOR UPDATE OF o SKIP LOCKED
    ), due AS (
      SELECT d.id, c.url, c.secret_encrypted, c.active
        FROM (SELECT * FROM pending UNION ALL SELECT * FROM expired) d
        LEFT JOIN webhook_configs c ON c.id = d.webhook_config_id
       ORDER BY d.next_attempt_at, d.id
       LIMIT ${limit}
    )
    UPDATE outbound_queue_items AS q
       SET status = 'processing', lease_token = ${token}, lease_expires_at = ${leaseUntil}::timestamptz,
           attempts = q.attempts + 1, updated_at = ${now}::timestamptz
      FROM due
     WHERE q.id = due.id
     RETURNING q.id, q.attempts, q.max_attempts, q.schedule_started_at, q.message_id, q.payload,
               due.url, due.secret_encrypted, due.active`;
}
