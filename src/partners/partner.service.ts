import type { FeedListing } from '../changes/ledger';
import type { Partner, PartnerType, PrismaClient } from '../generated/prisma/client';
import { notFound } from '../errors/app-error';
import type { PageShape, SyncErrorShape, SyncResultShape } from '../changes/results';
import { changeListPage, fetchPage, RECENT_ORDER, type ChangeListSource, type PageArgs } from '../changes/page';
import { syncResult, validateBatch } from '../changes/tracked.service';
import { inPushTransaction, type TransactionSource, upsertTracked, type TrackedTableSpec } from '../changes/upsert';
import { toSourceTime } from '../changes/source-time';
import { channelView, pageOnChannel, type ColumnCondition, type LedgerView } from '../changes/channel-view';
import { readChannelStates } from '../changes/sql/read-channel-states';
import type { PushedBy } from '../changes/history-writes';
import type { SqlRunner } from '../changes/ledger';
import { MAX_PARTNERS_PER_REQUEST, partnerInput } from './partner.input';
import { planPartnerBatch } from './partner-tree';

const partnerTable: TrackedTableSpec = {
  table: 'partners',
  columns: [
    { name: 'erp_id', sqlType: 'int' },
    { name: 'type', sqlType: 'partner_type' },
    { name: 'parent_external_id', sqlType: 'text' },
  ],
};

/** Serialises partner batches: two concurrent batches could otherwise close a cycle together. */
const PARTNER_TREE_LOCK = 7_301_001;

export async function syncPartners(
  db: TransactionSource,
  records: readonly unknown[],
  context: string,
  dryRun = false,
  pushedBy: PushedBy = null,
): Promise<SyncResultShape> {
  const { valid, errors } = await validateBatch(records, partnerInput, { argName: 'partners', maxItems: MAX_PARTNERS_PER_REQUEST });
  const { reports, order, rejected } = await inPushTransaction(db, dryRun, async (tx) => {
    await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${PARTNER_TREE_LOCK}::bigint)`;
    const links = valid.map(({ value }, index) => ({
      index,
      externalId: value.external_id,
      parentExternalId: value.parent_external_id,
    }));
    const stored = await storedAncestry(tx, [
      ...links.map((l) => l.externalId),
      ...links.flatMap((l) => (l.parentExternalId ? [l.parentExternalId] : [])),
    ]);
    const plan = planPartnerBatch(links, stored);
    const ordered = plan.order.map((i) => valid[i]!.value);
    const result = await upsertTracked(
      tx,
      partnerTable,
      ordered.map(({ external_id, erp_id, type, parent_external_id, source_updated_at, ...fields }) => ({
        externalId: external_id,
        columns: { erp_id, type, parent_external_id },
        fields,
        sourceUpdatedAt: toSourceTime(source_updated_at),
      })),
      context,
      pushedBy,
    );
    await resolveParentIds(
      tx,
      ordered.map((r) => r.external_id),
    );
    return { reports: result.reports, order: plan.order, rejected: plan.rejected };
  });
  const treeErrors: SyncErrorShape[] = [...rejected].map(([i, message]) => ({
    index: valid[i]!.index,
    external_id: valid[i]!.value.external_id,
    field: `partners[${valid[i]!.index}].parent_external_id`,
    message,
  }));
  const indexed = reports.map((r, i) => ({ ...r, index: valid[order[i]!]!.index, externalId: valid[order[i]!]!.value.external_id }));
  return syncResult(indexed, [...errors, ...treeErrors], { argName: 'partners', dryRun });
}

/** The stored parent of each given partner and of all its stored ancestors. */
async function storedAncestry(tx: SqlRunner, externalIds: string[]): Promise<Map<string, string | null>> {
  const ids = JSON.stringify([...new Set(externalIds)]);
  const rows = await tx.$queryRaw<Array<{ external_id: string; parent_external_id: string | null }>>`
    WITH RECURSIVE up AS (
       SELECT external_id, parent_external_id FROM partners
        WHERE external_id IN (SELECT jsonb_array_elements_text(${ids}::jsonb))
       UNION
       SELECT p.external_id, p.parent_external_id FROM partners p JOIN up ON p.external_id = up.parent_external_id
     ) SELECT external_id, parent_external_id FROM up`;
  return new Map(rows.map((r) => [r.external_id, r.parent_external_id]));
}

/** parent_id follows parent_external_id; every parent exists by now (the plan checked it). */
async function resolveParentIds(tx: SqlRunner, externalIds: string[]): Promise<void> {
  if (externalIds.length === 0) return;
  await tx.$executeRaw`
    WITH resolved AS (
       SELECT c.id, (SELECT p.id FROM partners p WHERE p.external_id = c.parent_external_id) AS parent_id
         FROM partners c WHERE c.external_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(externalIds)}::jsonb)))
     UPDATE partners AS c SET parent_id = r.parent_id
       FROM resolved r WHERE c.id = r.id AND c.parent_id IS DISTINCT FROM r.parent_id`;
}

export function listUpdatedPartners(db: ChangeListSource, reader: FeedListing, args: PageArgs): Promise<PageShape<Partner>> {
  return changeListPage(db, 'partners', reader, args);
}

export type PartnerFilter = {
  pending?: boolean | null | undefined;
  type?: PartnerType | null | undefined;
  rootsOnly?: boolean | null | undefined;
};

/** `pending` is the state on `channelId` (null: default, the rows' own column; ADR 0045). */
export function listPartners(
  prisma: PrismaClient,
  filter: PartnerFilter,
  args: PageArgs,
  channelId: number | null = null,
): Promise<PageShape<Partner>> {
  if (channelId !== null && filter.pending != null) {
    const conditions: ColumnCondition[] = [
      ...(filter.type ? [{ column: 'type', equals: filter.type }] : []),
      ...(filter.rootsOnly ? [{ column: 'parent_id', isNull: true as const }] : []),
    ];
    return pageOnChannel(prisma, 'partners', channelId, filter.pending, conditions, args, (ids) =>
      prisma.partner.findMany({ where: { id: { in: ids } } }),
    );
  }
  const where = {
    ...(filter.pending != null ? { pending: filter.pending } : {}),
    ...(filter.type ? { type: filter.type } : {}),
    ...(filter.rootsOnly ? { parentId: null } : {}),
  };
  return fetchPage(args, where, {
    find: (w, window) => prisma.partner.findMany({ where: w, orderBy: RECENT_ORDER, ...window }),
    count: (w) => prisma.partner.count({ where: w }),
  });
}

export type PartnerNode = ReturnType<typeof partnerRecord> & { children: PartnerNode[] };

/**
 * The change-record fields of a partner (SPEC 2.1 plus parentExternalId, parentId, type); `ledger`:
 * isNew and changedFields as a channel other than default sees them, else the row's own.
 */
export function partnerRecord(p: Partner, ledger: Pick<LedgerView, 'isNew' | 'changedFields'> = p) {
  return {
    id: p.id,
    externalId: p.externalId,
    erpId: p.erpId,
    isNew: ledger.isNew,
    changedFields: ledger.changedFields,
    context: p.context,
    data: p.data as Record<string, unknown>,
    updatedAt: p.updatedAt.toISOString(),
    parentExternalId: p.parentExternalId,
    parentId: p.parentId,
    type: p.type,
  };
}

/**
 * The whole tree a partner belongs to, from its root; built without recursion. isNew and
 * changedFields are those of channel `channelId` (null: default; ADR 0045).
 */
export async function partnerHierarchy(prisma: PrismaClient, id: number, channelId: number | null = null): Promise<{ root: PartnerNode }> {
  const [top] = await prisma.$queryRaw<Array<{ id: number }>>`
    WITH RECURSIVE up AS (
       SELECT id, parent_id, 0 AS level FROM partners WHERE id = ${id}::int
       UNION ALL
       SELECT p.id, p.parent_id, up.level + 1 FROM partners p JOIN up ON p.id = up.parent_id WHERE up.level < 100000
     ) SELECT id FROM up ORDER BY level DESC LIMIT 1`;
  if (!top) throw notFound('Partner', id);
  const members = await prisma.$queryRaw<Array<{ id: number }>>`
    WITH RECURSIVE down AS (
       SELECT id FROM partners WHERE id = ${top.id}::int
       UNION
       SELECT p.id FROM partners p JOIN down ON p.parent_id = down.id
     ) SELECT id FROM down`;
  const ids = members.map((m) => m.id);
  const partners = await prisma.partner.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } });
  const states = channelId === null ? undefined : await readChannelStates(prisma, 'partners', channelId, ids);
  const nodes = new Map<number, PartnerNode>(
    partners.map((p) => [p.id, { ...partnerRecord(p, states ? channelView(p, states.get(p.id)) : p), children: [] }]),
  );
  for (const p of partners) {
    if (p.id !== top.id && p.parentId !== null) nodes.get(p.parentId)?.children.push(nodes.get(p.id)!);
  }
  return { root: nodes.get(top.id)! };
}
