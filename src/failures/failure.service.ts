import type { PrismaClient, SyncFailure } from '../generated/prisma/client';
import { notFound } from '../errors/app-error';
import { parseInput } from '../errors/zod-details';
import type { EventHub } from '../events/hub';
import type { PageShape } from '../graphql/pages';
import type { PageArgs } from '../changes/pagination';
import { fetchPage } from '../changes/pages';
import { acknowledge, type TrackedTableName } from '../changes/tracked-table';
import { enqueueDeliveries } from '../queue/queue.service';
import { directionFor, failureInput, type SyncFailureEvent } from './failure.input';

export function failureEvent(f: SyncFailure): SyncFailureEvent {
  return {
    event: 'sync_failure',
    entity_type: f.entityType,
    external_id: f.externalId,
    source: f.source,
    error_message: f.errorMessage,
    error_details: f.errorDetails as SyncFailureEvent['error_details'],
    failed_at: f.createdAt.toISOString(),
  };
}

/**
 * Stores a failure (open) and, in the same transaction, one delivery per matching active webhook
 * configuration. Then wakes the worker and tells live subscribers.
 */
export async function reportFailure(
  prisma: PrismaClient,
  events: EventHub,
  input: Record<string, unknown>,
): Promise<{ id: number; status: 'open'; deliveries: number }> {
  const f = parseInput(failureInput, input);
  const { failure, deliveries } = await prisma.$transaction(async (tx) => {
    const failure = await tx.syncFailure.create({
      data: {
        entityType: f.entity_type,
        source: f.source,
        externalId: f.external_id ?? null,
        middlewareId: f.middleware_id ?? null,
        errorMessage: f.error_message,
        errorDetails: f.error_details ?? [],
        ...(f.raw_data != null ? { rawData: f.raw_data as object, hasRawData: true } : {}),
      },
    });
    const deliveries = await enqueueDeliveries(tx, {
      entityType: f.entity_type,
      direction: directionFor(f.source),
      failureId: failure.id,
      payload: failureEvent(failure),
    });
    return { failure, deliveries };
  });
  if (deliveries > 0) events.signalQueueWork();
  events.publishFailure(failureEvent(failure));
  return { id: failure.id, status: 'open', deliveries };
}

export type FailureFilter = {
  entity_type?: string | null;
  status?: string | null;
  source?: string | null;
};

/** Newest first; raw_data is left out (hasRawData says whether there is some). */
export function listFailures(
  prisma: PrismaClient,
  filter: FailureFilter,
  args: PageArgs & { since?: Date | null },
): Promise<PageShape<Omit<SyncFailure, 'rawData'>>> {
  const where = {
    ...(filter.entity_type ? { entityType: filter.entity_type } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.source ? { source: filter.source } : {}),
    ...(args.since ? { createdAt: { gt: args.since } } : {}),
  };
  return fetchPage(args, where, {
    find: (w, window) =>
      prisma.syncFailure.findMany({ where: w, omit: { rawData: true }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...window }),
    count: (w) => prisma.syncFailure.count({ where: w }),
  });
}

export async function getFailure(prisma: PrismaClient, id: number): Promise<SyncFailure> {
  const failure = await prisma.syncFailure.findUnique({ where: { id } });
  if (!failure) throw notFound('Failure', id);
  return failure;
}

/** Resolving twice is harmless: the first resolution stands. */
export async function resolveFailure(prisma: PrismaClient, id: number, by: string, note?: string | null): Promise<SyncFailure> {
  await prisma.syncFailure.updateMany({
    where: { id, status: 'open' },
    data: { status: 'resolved', resolvedAt: new Date(), resolvedBy: by, resolutionNote: note ?? null },
  });
  return getFailure(prisma, id);
}

export const ACK_ENTITY_TABLES = {
  product: 'products',
  partner: 'partners',
  sale_order: 'sale_orders',
  purchase_order: 'purchase_orders',
} as const satisfies Record<string, TrackedTableName>;

export type AckEntityType = keyof typeof ACK_ENTITY_TABLES;

/**
 * The detailed acknowledgement (SPEC 4.2): acknowledges the change record exactly like the
 * DELETE route and, in the same transaction, resolves every open failure of that entity.
 */
export async function acknowledgeUpdate(
  prisma: PrismaClient,
  entityType: AckEntityType,
  id: number,
  by: string,
  note?: string | null,
): Promise<{ success: true; acknowledged: number; resolvedFailures: number }> {
  return prisma.$transaction(async (tx) => {
    const [record] = await acknowledge(tx, ACK_ENTITY_TABLES[entityType], [id]);
    if (!record) throw notFound(entityType.replace('_', ' '), id);
    const { count } = await tx.syncFailure.updateMany({
      where: {
        status: 'open',
        entityType,
        OR: [{ middlewareId: id }, ...(record.external_id ? [{ externalId: record.external_id }] : [])],
      },
      data: { status: 'resolved', resolvedAt: new Date(), resolvedBy: by, resolutionNote: note ?? 'acknowledged' },
    });
    return { success: true as const, acknowledged: 1, resolvedFailures: count };
  });
}
