import type { QueueDatabase } from '../queue/sql/queue-database';

export const HEALTH_STATES = ['healthy', 'failing', 'disabled'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

export const DEFAULT_DISABLE_AFTER_HOURS = 120;

/** A configuration's health as operators see it (ADR 0022). */
export type EndpointHealth = {
  state: HealthState;
  lastSuccessAt: Date | null;
  failingSince: Date | null;
  consecutiveFailedItems: number;
  autoDisabledAt: Date | null;
};

export function healthOf(config: {
  active: boolean;
  lastSuccessAt: Date | null;
  failingSince: Date | null;
  consecutiveFailedItems: number;
  autoDisabledAt: Date | null;
}): EndpointHealth {
  const state: HealthState = !config.active ? 'disabled' : config.failingSince ? 'failing' : 'healthy';
  const { lastSuccessAt, failingSince, consecutiveFailedItems, autoDisabledAt } = config;
  return { state, lastSuccessAt, failingSince, consecutiveFailedItems, autoDisabledAt };
}

export const OPERATIONAL_EVENT_NAMES = ['webhook.disabled', 'delivery.failed', 'delivery.recovered'] as const;

/**
 * What an operator is told live (the `operationalEvents` subscription): a configuration the
 * worker disabled, an item abandoned (no more retries), an item delivered after failed attempts.
 */
export type OperationalEvent = {
  event: (typeof OPERATIONAL_EVENT_NAMES)[number];
  at: string;
  webhookId: number | null;
  url: string | null;
  itemId: number | null;
  failureId: number | null;
  attempts: number | null;
  error: string | null;
  statusCode: number | null;
  failingSince: string | null;
  consecutiveFailedItems: number | null;
};

/** One written attempt result, as the health step needs it. */
export type HealthFact = {
  id: number;
  at: string;
  status: 'pending' | 'completed' | 'failed';
  /** Attempts in the item's schedule, this one included: more than 1 on a success is a recovery. */
  attempts: number;
  /** False when no request was made (configuration removed or disabled): not the endpoint's doing. */
  counted: boolean;
  error: string | null;
  status_code: number | null;
};

type ItemRow = {
  item_id: number;
  webhook_id: number | null;
  url: string | null;
  failure_id: number | null;
  status: string;
  attempts: number;
  error: string | null;
  status_code: number | null;
  at: string;
};
type DisabledRow = { webhook_id: number; url: string; failing_since: string; consecutive_failed_items: number };

/**
 * Updates the health of the configurations behind a batch of written results, disables those
 * failing since before `now - disableAfterMs`, and returns the operational events of the batch.
 * A separate statement after the worker's result statement (one per batch, not per delivery).
 * Results of concurrent workers may land out of order: a failure older than the newest success
 * does not start a failure streak, and a success older than the streak does not end it.
 * Configuration rows are locked in id order, so concurrent batches cannot deadlock.
 */
export async function recordEndpointHealth(
  db: QueueDatabase,
  facts: HealthFact[],
  options: { now: Date; disableAfterMs: number },
): Promise<OperationalEvent[]> {
  if (facts.length === 0) return [];
  const disableBefore = options.disableAfterMs > 0 ? new Date(options.now.getTime() - options.disableAfterMs) : null;
  const { now } = options;
  const [row] = await db.$queryRaw<Array<{ disabled: DisabledRow[]; items: ItemRow[] }>>`
    WITH r AS (
       SELECT v.id, v.at, v.status, v.attempts, v.counted, v.error, v.status_code,
              q.webhook_config_id AS config_id, q.failure_id
         FROM jsonb_to_recordset(${JSON.stringify(facts)}::jsonb)
           AS v(id int, at timestamptz, status text, attempts int, counted boolean, error text, status_code int)
         JOIN outbound_queue_items q ON q.id = v.id
     ),
     base AS (
       SELECT c.id, c.active, c.failing_since, c.consecutive_failed_items,
              GREATEST(c.last_success_at, s.success_at) AS success_at
         FROM webhook_configs c
         JOIN (SELECT config_id, max(at) FILTER (WHERE status = 'completed') AS success_at
                 FROM r WHERE counted AND config_id IS NOT NULL GROUP BY config_id) s ON s.config_id = c.id
        ORDER BY c.id
          FOR UPDATE OF c
     ),
     decided AS (
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
     ),
     updated AS (
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
       (SELECT COALESCE(json_agg(json_build_object('webhook_id', u.id, 'url', u.url, 'failing_since', u.failing_since,
                                                   'consecutive_failed_items', u.consecutive_failed_items) ORDER BY u.id), '[]'::json)
          FROM updated u WHERE u.disable) AS disabled,
       (SELECT COALESCE(json_agg(json_build_object('item_id', r.id, 'webhook_id', r.config_id, 'url', c.url, 'failure_id', r.failure_id,
                                                   'status', r.status, 'attempts', r.attempts, 'error', r.error,
                                                   'status_code', r.status_code, 'at', r.at) ORDER BY r.at, r.id), '[]'::json)
          FROM r LEFT JOIN webhook_configs c ON c.id = r.config_id
         WHERE r.status = 'failed' OR (r.status = 'completed' AND r.attempts > 1)) AS items`;
  const at = options.now.toISOString();
  const none = {
    itemId: null,
    failureId: null,
    attempts: null,
    error: null,
    statusCode: null,
    failingSince: null,
    consecutiveFailedItems: null,
  };
  const itemEvents = (row?.items ?? []).map((i): OperationalEvent => ({
    ...none,
    event: i.status === 'failed' ? 'delivery.failed' : 'delivery.recovered',
    at: new Date(i.at).toISOString(),
    webhookId: i.webhook_id,
    url: i.url,
    itemId: i.item_id,
    failureId: i.failure_id,
    attempts: i.attempts,
    ...(i.status === 'failed' ? { error: i.error, statusCode: i.status_code } : {}),
  }));
  const disabledEvents = (row?.disabled ?? []).map((d): OperationalEvent => ({
    ...none,
    event: 'webhook.disabled',
    at,
    webhookId: d.webhook_id,
    url: d.url,
    failingSince: new Date(d.failing_since).toISOString(),
    consecutiveFailedItems: d.consecutive_failed_items,
    error: `no successful delivery since ${new Date(d.failing_since).toISOString()}`,
  }));
  return [...itemEvents, ...disabledEvents];
}
