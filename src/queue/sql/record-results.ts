import type { AttemptLogEntry } from '../attempt-log';
import type { QueueDatabase } from './queue-database';

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

export type WrittenResult = { id: number; status: AttemptResult['status'] };

/**
 * Writes attempt results and their attempt-log rows in one statement, each only while its lease is
 * still ours; returns those written. A result dropped because its lease was taken over logs no row
 * either, so that the statement stays safe to repeat after a lost reply (ADR 0021).
 */
export async function recordResults(db: QueueDatabase, results: AttemptResult[]): Promise<WrittenResult[]> {
  return db.$queryRaw<WrittenResult[]>`
    WITH v AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(results)}::jsonb)
        AS v(id int, lease_token text, status queue_status, at timestamptz, status_code int, error text, next_attempt_at timestamptz,
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
    SELECT id, status FROM written`;
}
