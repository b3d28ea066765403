import { Prisma, type OutboundQueueItem, type PrismaClient } from '../generated/prisma/client';
import { QueueStatus as StoredQueueStatus } from '../generated/prisma/enums';
import { AppError, notFound, validationFailed } from '../errors/app-error';
import type { PageShape } from '../changes/results';
import { fetchPage, RECENT_ORDER, type PageArgs } from '../changes/page';
import { attemptedItemsSql } from './delivery-stats';

/** The values of the database's queue_status enum (schema.prisma), in its order. */
export const QUEUE_STATUSES = Object.values(StoredQueueStatus);
export type QueueStatus = StoredQueueStatus;

/** Workers of every replica LISTEN on this channel (PostgreSQL); NOTIFY is sent on commit. */
export const QUEUE_CHANNEL = 'sync_gateway_queue';

/**
 * The part of a statement that queues one delivery per active configuration matching a new failure,
 * for the caller's single statement: the failure and its deliveries are stored together or not at
 * all. `failure` names a CTE with the new sync_failures row; `direction` is SQL for the
 * configurations' direction. Adds the CTE `queued` (the new items). The workers are woken after the
 * commit, not by a NOTIFY inside it (`notifyQueueWork`, which says why).
 */
export function enqueueDeliveriesSql(failure: string, direction: string): string {
  return `queued AS (
       INSERT INTO outbound_queue_items (status, message_id, event, payload, webhook_config_id, failure_id)
       SELECT 'pending'::queue_status, 'msg_' || replace(gen_random_uuid()::text, '-', ''), 'sync_failure',
              jsonb_build_object('event', 'sync_failure', 'failure_id', f.id, 'entity_type', f.entity_type, 'external_id', f.external_id,
                                 'source', f.source, 'error_message', f.error_message, 'error_details', f.error_details,
                                 'failed_at', to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
              c.id, f.id
         FROM ${failure} f JOIN webhook_configs c ON c.active AND c.kind = 'failures' AND c.entity_type = f.entity_type AND c.direction = ${direction}::webhook_direction
        ORDER BY c.id
       RETURNING id
     )`;
}

/** Items per status, and `retrying`: pending items whose last attempt failed (they stay pending for up to 24 hours). */
export async function queueStats(prisma: PrismaClient): Promise<Record<QueueStatus | 'retrying', number>> {
  const [rows, retrying] = await Promise.all([
    prisma.outboundQueueItem.groupBy({ by: ['status'], _count: { _all: true } }),
    prisma.outboundQueueItem.count({ where: RETRYING }),
  ]);
  const stats = { pending: 0, processing: 0, completed: 0, failed: 0, retrying };
  for (const row of rows) if (row.status in stats) stats[row.status] = row._count._all;
  return stats;
}

/** A pending item whose last attempt failed: what an endpoint failing every attempt leaves in the queue. */
const RETRYING = { status: 'pending', lastError: { not: null } } as const;

export type DeliveryMinute = { minute: Date; delivered: number; failed: number; failedAttempts: number };

/** The longest window deliveriesPerMinute answers: one day. */
export const MAX_RATE_MINUTES = 24 * 60;

/**
 * Deliveries finished in each of the last `minutes` whole minutes, oldest first, zeros included:
 * `delivered` items completed, `failed` items that used up their attempts in that minute, and
 * `failedAttempts` attempts that failed in it. An endpoint failing every attempt keeps its items
 * pending for up to a day, retrying: counting abandoned items only showed 0 failed all that time.
 * Attempts are found through their items (`ATTEMPTED_ITEMS_SQL`), whose indexes bound the read.
 */
export async function deliveriesPerMinute(prisma: PrismaClient, minutes: number): Promise<DeliveryMinute[]> {
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_RATE_MINUTES) {
    throw validationFailed([{ field: 'minutes', message: `Must be an integer from 1 to ${MAX_RATE_MINUTES}` }]);
  }
  return prisma.$queryRaw<DeliveryMinute[]>`
    WITH window_start AS (SELECT date_trunc('minute', now()) - (${minutes}::int - 1) * interval '1 minute' AS t),
     finished AS (
       SELECT date_trunc('minute', completed_at) AS minute, 'completed' AS status FROM outbound_queue_items, window_start
        WHERE status = 'completed' AND completed_at >= window_start.t
       UNION ALL
       SELECT date_trunc('minute', updated_at), 'failed' FROM outbound_queue_items, window_start
        WHERE status = 'failed' AND updated_at >= window_start.t
       UNION ALL
       SELECT date_trunc('minute', a.started_at), 'failed_attempt'
         FROM window_start, ${attemptedItemsSql(Prisma.sql`(SELECT t FROM window_start)`)} AS q
         JOIN delivery_attempts a ON a.item_id = q.id
        WHERE a.started_at >= window_start.t AND a.outcome <> 'success'
     )
     SELECT m.minute,
            (count(f.minute) FILTER (WHERE f.status = 'completed'))::int AS delivered,
            (count(f.minute) FILTER (WHERE f.status = 'failed'))::int AS failed,
            (count(f.minute) FILTER (WHERE f.status = 'failed_attempt'))::int AS "failedAttempts"
       FROM window_start, generate_series(window_start.t, date_trunc('minute', now()), interval '1 minute') AS m(minute)
       LEFT JOIN finished f ON f.minute = m.minute
      GROUP BY m.minute ORDER BY m.minute`;
}

export type QueueFilter = {
  status?: QueueStatus | null | undefined;
  failureId?: number | null | undefined;
  /** The webhook-id header of a delivery (Standard Webhooks), as a receiver logged it. */
  messageId?: string | null | undefined;
  /** Only pending items whose last attempt failed. */
  retrying?: boolean | null | undefined;
};

/** Queue items, newest first, optionally of one status, of one failure (the failure's deliveries), of one webhook-id, or retrying. */
export function listQueueItems(prisma: PrismaClient, filter: QueueFilter, args: PageArgs): Promise<PageShape<OutboundQueueItem>> {
  // Ids are positive: a failureId of 0 or less names nothing and is a mistake, not an empty page.
  if (filter.failureId != null && filter.failureId < 1) throw validationFailed([{ field: 'failureId', message: 'Must be at least 1' }]);
  const where = {
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.failureId != null ? { failureId: filter.failureId } : {}),
    ...(filter.messageId != null ? { messageId: filter.messageId.trim() } : {}),
    ...(filter.retrying ? RETRYING : {}),
  };
  return fetchPage(args, where, {
    find: (where, window) => prisma.outboundQueueItem.findMany({ where, orderBy: RECENT_ORDER, ...window }),
    count: (where) => prisma.outboundQueueItem.count({ where }),
  });
}

/** One item, its payload included; NOT_FOUND for an unknown id. */
export async function getQueueItem(prisma: PrismaClient, id: number): Promise<OutboundQueueItem> {
  const item = await prisma.outboundQueueItem.findUnique({ where: { id } });
  if (!item) throw notFound('Queue item', id);
  return item;
}

/** The most attempts one item shows (newest first); a schedule has 6, only repeated retries make more. */
export const MAX_LISTED_ATTEMPTS = 100;

/** Items retry accepts: a failed item is retried, a completed one resent (same webhook-id, ADR 0021). */
const RETRYABLE_STATUSES: QueueStatus[] = ['failed', 'completed'];

/**
 * A failed item is retried, a completed one resent: either goes back to pending, due now, with a
 * fresh schedule and the same webhook-id, so a receiver that deduplicates by it processes the
 * event at most once however often it is resent.
 */
export async function retryQueueItem(prisma: PrismaClient, id: number): Promise<OutboundQueueItem> {
  const { count } = await prisma.outboundQueueItem.updateMany({
    where: { id, status: { in: RETRYABLE_STATUSES } },
    data: freshSchedule(),
  });
  const item = await prisma.outboundQueueItem.findUnique({ where: { id } });
  if (!item) throw notFound('Queue item', id);
  if (count === 0) {
    throw new AppError('CONFLICT', `Queue item ${id} is ${item.status}; only failed (retry) or completed (resend) items can be retried`);
  }
  return item;
}

export const RECOVERABLE_STATUSES = ['failed'] as const satisfies readonly QueueStatus[];
export type RecoverableStatus = (typeof RECOVERABLE_STATUSES)[number];

/**
 * Recover (Svix's word): every item of `status` queued within [since, until) gets a fresh
 * schedule, due now, with its webhook-id kept. Workers of every replica are woken (NOTIFY on commit).
 */
export async function recoverQueueItems(
  prisma: PrismaClient,
  window: { since: Date; until?: Date | null | undefined; status?: RecoverableStatus | null | undefined },
  now: Date = new Date(),
): Promise<number> {
  if (window.until && window.since.getTime() > window.until.getTime()) {
    throw validationFailed([{ field: 'since', message: 'Must not be after until' }]);
  }
  const until = window.until ?? null;
  const [row] = await prisma.$queryRaw<Array<{ recovered: number }>>`
    WITH recovered AS (
       UPDATE outbound_queue_items
          SET status = 'pending', attempts = 0, next_attempt_at = ${now}, schedule_started_at = ${now}, lease_token = NULL,
              lease_expires_at = NULL, completed_at = NULL, updated_at = ${now}
        WHERE status = ${window.status ?? 'failed'}::queue_status AND created_at >= ${window.since}
          AND (${until}::timestamptz IS NULL OR created_at < ${until}::timestamptz)
        RETURNING id
     ), notified AS (
       SELECT pg_notify(${QUEUE_CHANNEL}, '') FROM (SELECT 1 FROM recovered LIMIT 1) AS any_recovered
     )
     SELECT (SELECT count(*)::int FROM recovered) AS recovered, (SELECT count(*)::int FROM notified) AS notified`;
  return row?.recovered ?? 0;
}

/** Every failed item whose attempts are below maxAttempts (all failed items when omitted). */
export async function retryFailedItems(prisma: PrismaClient, maxAttempts?: number | null): Promise<number> {
  if (maxAttempts != null && maxAttempts < 1) {
    throw validationFailed([{ field: 'maxAttempts', message: 'Must be at least 1' }]);
  }
  const { count } = await prisma.outboundQueueItem.updateMany({
    where: { status: 'failed', ...(maxAttempts != null ? { attempts: { lt: maxAttempts } } : {}) },
    data: freshSchedule(),
  });
  return count;
}

function freshSchedule() {
  const now = new Date();
  return {
    status: 'pending' as const,
    attempts: 0,
    nextAttemptAt: now,
    scheduleStartedAt: now,
    leaseToken: null,
    leaseExpiresAt: null,
    completedAt: null,
    updatedAt: now,
  };
}
