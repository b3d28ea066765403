import type { Pool } from 'pg';
import type { PrismaClient, SyncFailure } from '../generated/prisma/client';
import { notFound } from '../errors/app-error';
import { parseInput } from '../validation/zod-details';
import type { Role } from '../auth/roles';
import type { EventHub } from '../events/hub';
import type { PageShape } from '../changes/results';
import { fetchPage, type PageArgs } from '../changes/page';
import type { AckItem, FeedReader } from '../changes/ledger';
import { KEYED_ENTITIES, type KeyedEntity } from '../changes/tracked-entities';
import { capitalize } from '../changes/tracked-entity';
import { acknowledgeOne } from '../changes/tracked.service';
import { enqueueDeliveriesSql } from '../queue/queue.service';
import { notifyQueueWork } from '../queue/queue-notify';
import { queryPrepared } from '../db/prepared-query';
import {
  directionFor,
  FAILURE_ENTITY_TYPES,
  FAILURE_SOURCES,
  failureInput,
  reporterSource,
  type FailureEntityType,
  type FailureSource,
  type FailureStatus,
} from './failure.input';

/** The failure and one queue item per matching active configuration, in one statement (atomic, one round trip). */
const REPORT_SQL = `WITH failure AS (
       INSERT INTO sync_failures (entity_type, source, external_id, middleware_id, error_message, error_details, raw_data, has_raw_data, idempotency_ref)
       VALUES ($1::failure_entity_type, $2::failure_source, $3, $4::int, $5, $6::jsonb, $7::jsonb, $7::jsonb IS NOT NULL, $9)
       ON CONFLICT (idempotency_ref) DO NOTHING
       RETURNING id, entity_type, source, external_id, error_message, error_details, created_at
     ), ${enqueueDeliveriesSql('failure', '$8')}
     SELECT failure.id, failure.created_at, (SELECT count(*)::int FROM queued) AS deliveries FROM failure`;

type Stored = { id: number; created_at: Date; deliveries: number };

/** Where a report is stored: the pool beneath Prisma (`sql`), as the change lists (ADR 0033). */
export type FailureStore = { prisma: PrismaClient; sql: Pool };

/**
 * Stores a failure (open) and one delivery per matching active webhook configuration, in one
 * statement (atomic, and one round trip: reports arrive in bursts). Then wakes the workers and
 * tells live subscribers. A report sent under an Idempotency-Key whose failure is stored already
 * (its process died before the answer was kept) answers that failure and queues nothing again.
 */
export async function reportFailure(
  db: FailureStore,
  events: EventHub,
  input: Record<string, unknown>,
  idempotencyRef: string | null = null,
  reporter?: Role,
): Promise<{ id: number; status: 'open'; deliveries: number }> {
  const f = parseInput(failureInput, input);
  const source = reporterSource(reporter, f.source);
  const errorDetails = f.error_details ?? [];
  const params = [
    f.entity_type,
    source,
    f.external_id ?? null,
    f.middleware_id ?? null,
    f.error_message,
    JSON.stringify(errorDetails),
    f.raw_data != null ? JSON.stringify(f.raw_data) : null,
    directionFor(source),
    idempotencyRef,
  ];
  const row = await viaPool(db.sql, params);
  if (!row) return storedReport(db.prisma, idempotencyRef!);
  const { id, deliveries } = row;
  if (deliveries > 0) {
    events.signalQueueWork();
    notifyQueueWork(db.sql);
  }
  events.publishFailure({
    event: 'sync_failure',
    failure_id: id,
    entity_type: f.entity_type,
    external_id: f.external_id ?? null,
    source,
    error_message: f.error_message,
    error_details: errorDetails,
    failed_at: row.created_at.toISOString(),
  });
  return { id, status: 'open', deliveries };
}

/** A named prepared statement on the pool, without Prisma's raw-query layer. */
async function viaPool(pool: Pool, params: unknown[]): Promise<Stored | undefined> {
  const { rows } = await queryPrepared(pool, REPORT_SQL, params);
  const [row] = rows as Array<[number, Date, number]>;
  return row && { id: row[0], created_at: row[1], deliveries: row[2] };
}

/** The answer the first report under this key gave, as far as it can be told again. */
async function storedReport(prisma: PrismaClient, idempotencyRef: string): Promise<{ id: number; status: 'open'; deliveries: number }> {
  const failure = await prisma.syncFailure.findUniqueOrThrow({
    where: { idempotencyRef },
    select: { id: true, _count: { select: { deliveries: true } } },
  });
  return { id: failure.id, status: 'open', deliveries: failure._count.deliveries };
}

export type FailureFilter = {
  entity_type?: FailureEntityType | null | undefined;
  status?: FailureStatus | null | undefined;
  source?: FailureSource | null | undefined;
};

/** Newest first; raw_data is left out (hasRawData says whether there is some). */
export function listFailures(
  prisma: PrismaClient,
  filter: FailureFilter,
  args: PageArgs & { since?: Date | null | undefined },
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

export type OpenFailureCount = {
  entity_type: FailureEntityType;
  source: FailureSource;
  open: number;
};

/** Open failures per entity type and source, every combination present (zeros included). */
export async function openFailureCounts(prisma: PrismaClient): Promise<OpenFailureCount[]> {
  const rows = await prisma.syncFailure.groupBy({ by: ['entityType', 'source'], where: { status: 'open' }, _count: { _all: true } });
  const open = new Map(rows.map((r) => [`${r.entityType}/${r.source}`, r._count._all]));
  return FAILURE_ENTITY_TYPES.flatMap((entity_type) =>
    FAILURE_SOURCES.map((source) => ({ entity_type, source, open: open.get(`${entity_type}/${source}`) ?? 0 })),
  );
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

/** What the detailed acknowledgement takes: the entities with external ids, from their descriptors. */
export type AckEntityType = KeyedEntity['entityType'];
export const ACK_ENTITY_TYPES: readonly AckEntityType[] = KEYED_ENTITIES.map((e) => e.entityType);

/**
 * The detailed acknowledgement (SPEC 4.2): acknowledges the change record exactly like the
 * DELETE route and, in the same transaction, resolves every open failure of that entity.
 */
export async function acknowledgeUpdate(
  prisma: PrismaClient,
  entityType: AckEntityType,
  item: AckItem,
  caller: { reader: FeedReader; name: string },
  note?: string | null | undefined,
): Promise<{ success: true; acknowledged: number; resolvedFailures: number }> {
  const { id } = item;
  const entity = KEYED_ENTITIES.find((e) => e.entityType === entityType)!;
  return prisma.$transaction(async (tx) => {
    const record = await acknowledgeOne(tx, entity.table, capitalize(entity.noun.one), caller.reader, item);
    // Failures are reported for products, partners and sale orders only: a purchase order has none to resolve.
    if (!isFailureEntityType(entityType)) return { success: true as const, acknowledged: 1, resolvedFailures: 0 };
    const { count } = await tx.syncFailure.updateMany({
      where: {
        status: 'open',
        entityType,
        OR: [{ middlewareId: id }, ...(record.external_id ? [{ externalId: record.external_id }] : [])],
      },
      data: { status: 'resolved', resolvedAt: new Date(), resolvedBy: caller.name, resolutionNote: note ?? 'acknowledged' },
    });
    return { success: true as const, acknowledged: 1, resolvedFailures: count };
  });
}

const isFailureEntityType = (entityType: string): entityType is FailureEntityType =>
  (FAILURE_ENTITY_TYPES as readonly string[]).includes(entityType);
