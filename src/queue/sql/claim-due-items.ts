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
 */
export async function claimDueItems(
  db: QueueDatabase,
  claim: { now: Date; token: string; leaseUntil: Date; limit: number; exclude: number[] },
): Promise<ClaimedItem[]> {
  const { now, token, leaseUntil, limit, exclude } = claim;
  return db.$queryRaw<ClaimedItem[]>`
    UPDATE outbound_queue_items AS q
       SET status = 'processing', lease_token = ${token}, lease_expires_at = ${leaseUntil}::timestamptz,
           attempts = q.attempts + 1, updated_at = ${now}::timestamptz
      FROM (SELECT o.id, c.url, c.secret_encrypted, c.active
              FROM outbound_queue_items o LEFT JOIN webhook_configs c ON c.id = o.webhook_config_id
             WHERE ((o.status = 'pending' AND o.next_attempt_at <= ${now}::timestamptz)
                OR (o.status = 'processing' AND o.lease_expires_at < ${now}::timestamptz))
               AND NOT (o.id = ANY(${exclude}::int[]))
             ORDER BY o.next_attempt_at, o.id
             LIMIT ${limit}
             FOR UPDATE OF o SKIP LOCKED) AS due
     WHERE q.id = due.id
     RETURNING q.id, q.attempts, q.max_attempts, q.schedule_started_at, q.message_id, q.payload,
               due.url, due.secret_encrypted, due.active`;
}
