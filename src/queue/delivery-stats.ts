import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { validationFailed } from '../errors/app-error';

/**
 * The items that may have an attempt since `since`, each found through an index: an attempt since
 * then belongs to an item still pending or processing, completed since (completed_at), or
 * abandoned since (failed, updated_at). delivery_attempts has no index by time, and reading all of
 * it every ten seconds for a dashboard would grow with its retention.
 */
export function attemptedItemsSql(since: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(SELECT id, webhook_config_id FROM outbound_queue_items WHERE status IN ('pending', 'processing')
     UNION ALL SELECT id, webhook_config_id FROM outbound_queue_items WHERE status = 'completed' AND completed_at >= ${since}
     UNION ALL SELECT id, webhook_config_id FROM outbound_queue_items WHERE status = 'failed' AND updated_at >= ${since})`;
}

export type WebhookDeliveryStatsShape = {
  webhookId: number;
  attempts: number;
  succeeded: number;
  /** succeeded / attempts; null without attempts. */
  successRate: number | null;
  /** Over attempts that sent a request (not those the SSRF guard blocked or a removed configuration never made). */
  avgDurationMs: number | null;
  p95DurationMs: number | null;
};

/** The longest window webhookDeliveryStats answers: one day, as deliveriesPerMinute. */
export const MAX_STATS_MINUTES = 24 * 60;

/**
 * Per configuration, its attempts over the last `minutes`: how many, how many succeeded, and how
 * long requests took (mean and 95th percentile). Every configuration is listed, none attempted
 * with zeros and nulls.
 */
export async function webhookDeliveryStats(prisma: PrismaClient, minutes: number): Promise<WebhookDeliveryStatsShape[]> {
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_STATS_MINUTES) {
    throw validationFailed([{ field: 'minutes', message: `Must be an integer from 1 to ${MAX_STATS_MINUTES}` }]);
  }
  const since = Prisma.sql`(now() - ${minutes}::int * interval '1 minute')`;
  const rows = await prisma.$queryRaw<Array<Omit<WebhookDeliveryStatsShape, 'successRate'>>>`
    WITH attempts AS (
      SELECT q.webhook_config_id, a.outcome, a.duration_ms,
             NOT (a.outcome = 'blocked' OR (a.outcome = 'gone' AND a.status_code IS NULL)) AS requested
        FROM ${attemptedItemsSql(since)} AS q
        JOIN delivery_attempts a ON a.item_id = q.id
       WHERE a.started_at >= ${since}
    )
    SELECT c.id AS "webhookId",
           count(a.outcome)::int AS attempts,
           (count(a.outcome) FILTER (WHERE a.outcome = 'success'))::int AS succeeded,
           (avg(a.duration_ms) FILTER (WHERE a.requested))::float8 AS "avgDurationMs",
           (percentile_cont(0.95) WITHIN GROUP (ORDER BY a.duration_ms) FILTER (WHERE a.requested))::float8 AS "p95DurationMs"
      FROM webhook_configs c
      LEFT JOIN attempts a ON a.webhook_config_id = c.id
     GROUP BY c.id ORDER BY c.id`;
  return rows.map((r) => ({
    ...r,
    successRate: r.attempts > 0 ? r.succeeded / r.attempts : null,
    avgDurationMs: r.avgDurationMs === null ? null : Math.round(r.avgDurationMs),
    p95DurationMs: r.p95DurationMs === null ? null : Math.round(r.p95DurationMs),
  }));
}
