import type { PrismaClient } from '../generated/prisma/client';
import type { AttemptLogEntry } from './attempt-log';

/** The worker's statements: raw SQL only, so that its thread can run them over plain pg. */
export type RawSql = Pick<PrismaClient, '$queryRawUnsafe'>;

export type ClaimedItem = {
  id: number;
  attempts: number;
  max_attempts: number;
  schedule_started_at: Date;
  message_id: string;
  payload: Record<string, unknown>;
  /** The item's configuration; null when it was removed. */
  url: string | null;
  secret_encrypted: string | null;
  active: boolean | null;
};

/** An attempt's result for its item, and its row of the attempt log. */
export type AttemptResult = AttemptLogEntry & {
  id: number;
  lease_token: string;
  status: 'pending' | 'completed' | 'failed';
  at: string;
  status_code: number | null;
  error: string | null;
  next_attempt_at: string | null;
};

/**
 * Claims due items (pending and due, or processing under an expired lease) together with their
 * configuration, FOR UPDATE SKIP LOCKED so that concurrent workers never claim one item twice.
 * `exclude` holds the items this worker still holds: a lease that ran out during an outage is
 * still its own to finish.
 */
export async function claimDueItems(
  prisma: RawSql,
  claim: { now: Date; token: string; leaseUntil: Date; limit: number; exclude: number[] },
): Promise<ClaimedItem[]> {
  return prisma.$queryRawUnsafe<ClaimedItem[]>(
    `UPDATE outbound_queue_items AS q
        SET status = 'processing', lease_token = $2, lease_expires_at = $3::timestamptz,
            attempts = q.attempts + 1, updated_at = $1::timestamptz
       FROM (SELECT o.id, c.url, c.secret_encrypted, c.active
               FROM outbound_queue_items o LEFT JOIN webhook_configs c ON c.id = o.webhook_config_id
              WHERE ((o.status = 'pending' AND o.next_attempt_at <= $1::timestamptz)
                 OR (o.status = 'processing' AND o.lease_expires_at < $1::timestamptz))
                AND NOT (o.id = ANY($5::int[]))
              ORDER BY o.next_attempt_at, o.id
              LIMIT $4
              FOR UPDATE OF o SKIP LOCKED) AS due
      WHERE q.id = due.id
      RETURNING q.id, q.attempts, q.max_attempts, q.schedule_started_at, q.message_id, q.payload,
                due.url, due.secret_encrypted, due.active`,
    claim.now,
    claim.token,
    claim.leaseUntil,
    claim.limit,
    claim.exclude,
  );
}

/** The heartbeat: pushes out the leases of the items held (id → lease token) while still ours. */
export async function extendLeases(prisma: RawSql, held: ReadonlyMap<number, string>, leaseUntil: Date): Promise<void> {
  const ids = [...held.keys()];
  await prisma.$queryRawUnsafe(
    `UPDATE outbound_queue_items AS q SET lease_expires_at = $3::timestamptz
       FROM unnest($1::int[], $2::text[]) AS h(id, lease_token)
      WHERE q.id = h.id AND q.lease_token = h.lease_token AND q.status = 'processing'
      RETURNING q.id`,
    ids,
    ids.map((id) => held.get(id)!),
    leaseUntil,
  );
}

/**
 * Writes attempt results and their attempt-log rows in one statement, each only while its lease is
 * still ours; returns those written. A result dropped because its lease was taken over logs no row
 * either, so that the statement stays safe to repeat after a lost reply (ADR 0021).
 */
export async function recordResults(
  prisma: RawSql,
  results: AttemptResult[],
): Promise<Array<{ id: number; status: AttemptResult['status'] }>> {
  return prisma.$queryRawUnsafe<Array<{ id: number; status: AttemptResult['status'] }>>(
    `WITH v AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS v(id int, lease_token text, status text, at timestamptz, status_code int, error text, next_attempt_at timestamptz,
              attempt int, started_at timestamptz, duration_ms int, outcome text, http_status int, attempt_error text,
              response_body text, retry_after text)
     ), written AS (
       UPDATE outbound_queue_items AS q SET
          status = v.status, lease_token = NULL, lease_expires_at = NULL, updated_at = v.at,
          last_status_code = v.status_code, last_error = v.error,
          completed_at = CASE WHEN v.status = 'completed' THEN v.at ELSE q.completed_at END,
          next_attempt_at = COALESCE(v.next_attempt_at, q.next_attempt_at)
         FROM v
        WHERE q.id = v.id AND q.lease_token = v.lease_token AND q.status = 'processing'
        RETURNING q.id, q.status
     ), logged AS (
       INSERT INTO delivery_attempts (item_id, attempt, started_at, duration_ms, outcome, status_code, error, response_body, retry_after)
       SELECT v.id, v.attempt, v.started_at, v.duration_ms, v.outcome, v.http_status, v.attempt_error, v.response_body, v.retry_after
         FROM v JOIN written ON written.id = v.id
     )
     SELECT id, status FROM written`,
    JSON.stringify(results),
  );
}
