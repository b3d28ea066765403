import type { AttemptLogEntry } from '../../deliveries/attempt-log';
import type { OperationalEvent } from '../../events/live-events';
import { operationalEventsOf, type BatchEventRows } from '../../deliveries/endpoint-health';
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
  /** A request was made (false: configuration removed or disabled, not the endpoint's doing): counts for its health. */
  counted: boolean;
};

export type WrittenResult = { id: number; status: AttemptResult['status'] };

export type RecordedResults = { written: WrittenResult[]; events: OperationalEvent[] };

/**
 * Writes attempt results, their attempt-log rows and the health of their configurations (ADR
 * 0022) in one statement, each result only while its lease is still ours; returns those written
 * and the batch's operational events. A result dropped because its lease was taken over logs no
 * row and changes no health either, so the statement stays safe to repeat after a lost reply
 * (ADR 0021).
 *
 * Health is order-independent (concurrent workers' results land out of order): last_success_at is
 * the greatest success seen, a failure older than it does not start a streak, a success older than
 * the streak does not end it. Configurations failing since before `now - disableAfterMs` are
 * disabled (0: never).
 */
export async function recordResults(
  db: QueueDatabase,
  results: AttemptResult[],
  health: { now: Date; disableAfterMs: number },
): Promise<RecordedResults> {
  const { now } = health;
  const disableBefore = health.disableAfterMs > 0 ? new Date(now.getTime() - health.disableAfterMs) : null;
  // `locked` takes the configurations' rows before `written` takes the items' (it is the InitPlan
  // of that update), in id order: the order in which a configuration's deletion takes them (its
  // row, then its items' by ON DELETE SET NULL) and concurrent batches take them, so none deadlock.
  const [row] = await db.$queryRaw<Array<BatchEventRows & { written: WrittenResult[] }>>`
    WITH v AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(results)}::jsonb)
        AS v(id int, lease_token text, status queue_status, at timestamptz, status_code int, error text, next_attempt_at timestamptz,
             attempt int, started_at timestamptz, duration_ms int, outcome text, http_status int, attempt_error text,
             response_body text, retry_after text, counted boolean)
    ), locked AS (
      SELECT c.id, c.active, c.failing_since, c.consecutive_failed_items, c.last_success_at
        FROM webhook_configs c
       WHERE c.id IN (SELECT q.webhook_config_id FROM outbound_queue_items q JOIN v ON v.id = q.id WHERE v.counted)
       ORDER BY c.id
         FOR UPDATE OF c
    ), written AS (
      UPDATE outbound_queue_items AS q SET
         status = v.status, lease_token = NULL, lease_expires_at = NULL, updated_at = v.at,
         last_status_code = v.status_code, last_error = v.error,
         completed_at = CASE WHEN v.status = 'completed' THEN v.at ELSE q.completed_at END,
         next_attempt_at = COALESCE(v.next_attempt_at, q.next_attempt_at)
        FROM v
       WHERE q.id = v.id AND q.lease_token = v.lease_token AND q.status = 'processing'
         AND (SELECT count(*) FROM locked) >= 0
       RETURNING q.id, q.status, q.webhook_config_id, q.failure_id
    ), logged AS (
      INSERT INTO delivery_attempts (item_id, attempt, started_at, duration_ms, outcome, status_code, error, response_body, retry_after)
      SELECT v.id, v.attempt, v.started_at, v.duration_ms, v.outcome, v.http_status, v.attempt_error, v.response_body, v.retry_after
        FROM v JOIN written ON written.id = v.id
    ), r AS (
      SELECT v.id, v.at, v.status, v.attempt AS attempts, v.counted, v.error, v.status_code,
             w.webhook_config_id AS config_id, w.failure_id
        FROM v JOIN written w ON w.id = v.id
    ), base AS (
      SELECT l.id, l.active, l.failing_since, l.consecutive_failed_items, GREATEST(l.last_success_at, s.success_at) AS success_at
        FROM locked l
        JOIN (SELECT config_id, max(at) FILTER (WHERE status = 'completed') AS success_at
                FROM r WHERE counted AND config_id IS NOT NULL GROUP BY config_id) s ON s.config_id = l.id
    ), decided AS (
      SELECT b.id, b.success_at,
             CASE WHEN b.streak_goes_on THEN LEAST(b.failing_since, f.first_failure_at) ELSE f.first_failure_at END AS failing_since,
             CASE WHEN b.streak_goes_on THEN b.consecutive_failed_items ELSE 0 END + f.failed_items AS failed_items,
             b.active
        FROM (SELECT base.*, (failing_since IS NOT NULL AND (success_at IS NULL OR failing_since > success_at)) AS streak_goes_on
                FROM base) b
       CROSS JOIN LATERAL (
             SELECT min(r.at) AS first_failure_at, (count(*) FILTER (WHERE r.status = 'failed'))::int AS failed_items
               FROM r
              WHERE r.config_id = b.id AND r.counted AND r.status <> 'completed' AND (b.success_at IS NULL OR r.at > b.success_at)) f
    ), updated AS (
      UPDATE webhook_configs c
         SET last_success_at = d.success_at, failing_since = d.failing_since, consecutive_failed_items = d.failed_items,
             active = c.active AND NOT d.disable,
             auto_disabled_at = CASE WHEN d.disable THEN ${now}::timestamptz ELSE c.auto_disabled_at END,
             updated_at = CASE WHEN d.disable THEN ${now}::timestamptz ELSE c.updated_at END
        FROM (SELECT decided.*, COALESCE(active AND failing_since <= ${disableBefore}::timestamptz, false) AS disable FROM decided) d
       WHERE c.id = d.id
      RETURNING c.id, c.url, c.failing_since, c.consecutive_failed_items, d.disable
    )
    SELECT
      (SELECT COALESCE(json_agg(json_build_object('id', w.id, 'status', w.status)), '[]'::json) FROM written w) AS written,
      (SELECT COALESCE(json_agg(json_build_object('webhook_id', u.id, 'url', u.url, 'failing_since', u.failing_since,
                                                  'consecutive_failed_items', u.consecutive_failed_items) ORDER BY u.id), '[]'::json)
         FROM updated u WHERE u.disable) AS disabled,
      (SELECT COALESCE(json_agg(json_build_object('item_id', r.id, 'webhook_id', r.config_id, 'url', c.url, 'failure_id', r.failure_id,
                                                  'status', r.status, 'attempts', r.attempts, 'error', r.error,
                                                  'status_code', r.status_code, 'at', r.at) ORDER BY r.at, r.id), '[]'::json)
         FROM r LEFT JOIN webhook_configs c ON c.id = r.config_id
        WHERE r.status = 'failed' OR (r.status = 'completed' AND r.attempts > 1)) AS items`;
  return { written: row?.written ?? [], events: operationalEventsOf(row ?? { disabled: [], items: [] }, now) };
}
