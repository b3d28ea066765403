import type { OutboundQueueItem, PrismaClient } from '../generated/prisma/client';
import { AppError, notFound, validationFailed } from '../errors/app-error';
import type { PageShape } from '../graphql/pages';
import type { PageArgs } from '../changes/pagination';
import { fetchPage, RECENT_ORDER } from '../changes/pages';
import type { SqlRunner } from '../changes/tracked-table';

export const QUEUE_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type QueueStatus = (typeof QUEUE_STATUSES)[number];

/** Workers of every replica LISTEN on this channel (PostgreSQL); NOTIFY is sent on commit. */
export const QUEUE_CHANNEL = 'sync_gateway_queue';

/**
 * One queue item per active configuration that matches, written in the caller's transaction
 * so that an accepted failure and its deliveries are stored together or not at all.
 */
export async function enqueueDeliveries(
  tx: SqlRunner,
  target: { entityType: string; direction: string; failureId: number; payload: unknown },
): Promise<number> {
  const rows = await tx.$queryRawUnsafe<Array<{ id: number }>>(
    `INSERT INTO outbound_queue_items (status, message_id, event, payload, webhook_config_id, failure_id)
     SELECT 'pending', 'msg_' || replace(gen_random_uuid()::text, '-', ''), 'sync_failure', $3::jsonb, c.id, $4
       FROM webhook_configs c
      WHERE c.active AND c.entity_type = $1 AND c.direction = $2
      ORDER BY c.id
     RETURNING id`,
    target.entityType,
    target.direction,
    JSON.stringify(target.payload),
    target.failureId,
  );
  if (rows.length > 0) await tx.$executeRawUnsafe(`SELECT pg_notify('${QUEUE_CHANNEL}', '')`);
  return rows.length;
}

export async function queueStats(prisma: PrismaClient): Promise<Record<QueueStatus, number>> {
  const rows = await prisma.outboundQueueItem.groupBy({ by: ['status'], _count: { _all: true } });
  const stats = { pending: 0, processing: 0, completed: 0, failed: 0 };
  for (const row of rows) if (row.status in stats) stats[row.status as QueueStatus] = row._count._all;
  return stats;
}

export function listQueueItems(
  prisma: PrismaClient,
  filter: { status?: QueueStatus | null },
  args: PageArgs,
): Promise<PageShape<OutboundQueueItem>> {
  return fetchPage(args, filter.status ? { status: filter.status } : {}, {
    find: (where, window) => prisma.outboundQueueItem.findMany({ where, orderBy: RECENT_ORDER, ...window }),
    count: (where) => prisma.outboundQueueItem.count({ where }),
  });
}

/** A failed item goes back to pending, due now, with a fresh schedule. */
export async function retryQueueItem(prisma: PrismaClient, id: number): Promise<OutboundQueueItem> {
  const { count } = await prisma.outboundQueueItem.updateMany({
    where: { id, status: 'failed' },
    data: freshSchedule(),
  });
  const item = await prisma.outboundQueueItem.findUnique({ where: { id } });
  if (!item) throw notFound('Queue item', id);
  if (count === 0) throw new AppError('CONFLICT', `Queue item ${id} is ${item.status}; only failed items can be retried`);
  return item;
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
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    scheduleStartedAt: now,
    leaseToken: null,
    leaseExpiresAt: null,
    completedAt: null,
    updatedAt: now,
  };
}
