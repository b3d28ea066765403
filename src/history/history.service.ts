import type { PrismaClient } from '../generated/prisma/client';
import { notFound, validationFailed, type ErrorDetail } from '../errors/app-error';
import { HISTORY_ENTITIES, type HistoryEntity, type HistoryEntityType } from '../changes/history-writes';
import type { SqlRunner } from '../changes/ledger';
import { sql, trackedTable } from '../changes/sql/sql';
import { capitalize } from '../changes/tracked-entity';

/** Entries per record when no limit is given, and the most one call may ask for (ADR 0031). */
export const DEFAULT_HISTORY_LIMIT = 20;
export const MAX_HISTORY_LIMIT = 100;

/** The entity types that keep a history, in registry order (the descriptors' `history`). */
export const HISTORY_TYPES: readonly HistoryEntityType[] = HISTORY_ENTITIES.map((e) => e.entityType);

const entityOfType = (entityType: HistoryEntityType): HistoryEntity => HISTORY_ENTITIES.find((e) => e.entityType === entityType)!;

export type FieldChangeShape = { field: string; old: unknown; new: unknown };

/** One accepted change of one record. */
export type HistoryEntryShape = {
  recordId: number;
  revision: number;
  changedAt: Date;
  tokenName: string | null;
  action: 'created' | 'updated';
  changes: FieldChangeShape[];
  /** Price items only: the pricelist of the item. */
  pricelistExternalId: string | null;
};

export type RecordHistoryShape = { entityType: HistoryEntityType; externalId: string; entries: HistoryEntryShape[] };

type HistoryRow = {
  record_id: number;
  revision: number;
  changed_at: Date;
  token_name: string | null;
  old_values: Record<string, unknown> | null;
  new_values: Record<string, unknown>;
  pricelist_external_id?: string | null | undefined;
};

/** What is wrong with a limit (1…MAX_HISTORY_LIMIT, or none for the default). */
function limitProblems(limit: number | null | undefined): ErrorDetail[] {
  if (limit == null || (limit >= 1 && limit <= MAX_HISTORY_LIMIT)) return [];
  return [{ field: 'limit', message: `Must be between 1 and ${MAX_HISTORY_LIMIT}` }];
}

/** What is wrong with an entity type: stocks keep no history, and other names are unknown. */
function entityTypeProblems(value: string, field: string): ErrorDetail[] {
  if ((HISTORY_TYPES as readonly string[]).includes(value)) return [];
  const why =
    value === 'stock'
      ? 'Stocks keep no history (volume): previousQuantity on the change record is their past value'
      : `Unknown entity type "${value}"`;
  return [{ field, message: `${why}; one of ${HISTORY_TYPES.join(', ')}` }];
}

/** The limit to use: the default when none is given; else a 400 naming `limit` outside 1…MAX_HISTORY_LIMIT. */
export function historyLimit(limit: number | null | undefined): number {
  const problems = limitProblems(limit);
  if (problems.length > 0) throw validationFailed(problems);
  return limit ?? DEFAULT_HISTORY_LIMIT;
}

const SELECT_ENTRY = sql`h.record_id, h.revision, h.changed_at, h.token_name, h.old_values, h.new_values`;

function toEntry(row: HistoryRow): HistoryEntryShape {
  const fields = Object.keys(row.new_values).sort();
  return {
    recordId: row.record_id,
    revision: row.revision,
    changedAt: row.changed_at,
    tokenName: row.token_name,
    action: row.old_values === null ? 'created' : 'updated',
    changes: fields.map((field) => ({ field, old: row.old_values?.[field] ?? null, new: row.new_values[field] ?? null })),
    pricelistExternalId: row.pricelist_external_id ?? null,
  };
}

/**
 * The last `limit` entries of each given record, newest first, in one statement (the GraphQL
 * `history` field of a list resolves through a loader that calls this once per page).
 */
export async function historyOfRecords(
  db: SqlRunner,
  entityType: HistoryEntityType,
  recordIds: readonly number[],
  limit: number,
): Promise<Map<number, HistoryEntryShape[]>> {
  const ids = JSON.stringify([...new Set(recordIds)]);
  const rows = await db.$queryRaw<HistoryRow[]>`
    SELECT ${SELECT_ENTRY}
       FROM (SELECT (jsonb_array_elements_text(${ids}::jsonb))::int AS id) AS r
       CROSS JOIN LATERAL (SELECT * FROM change_history AS h
                            WHERE h.entity_type = ${entityType} AND h.record_id = r.id ORDER BY h.id DESC LIMIT ${limit}::int) AS h
      ORDER BY h.id DESC`;
  const byRecord = new Map<number, HistoryEntryShape[]>(recordIds.map((id) => [id, []]));
  for (const row of rows) byRecord.get(row.record_id)!.push(toEntry(row));
  return byRecord;
}

/**
 * GET /api/v1/history/{entityType}/{externalId}: the record's last entries, newest first. For
 * price_item the external id is the product's, and the entries are those of its items in every
 * pricelist. A record that does not exist is a 404; one whose entries retention removed has none.
 */
export async function historyByExternalId(
  prisma: PrismaClient,
  args: { entityType: string; externalId: string; limit?: number | null | undefined },
): Promise<RecordHistoryShape> {
  // One 400 names every bad argument.
  const problems = [...entityTypeProblems(args.entityType, 'entityType'), ...limitProblems(args.limit)];
  if (problems.length > 0) throw validationFailed(problems);
  const entityType = args.entityType as HistoryEntityType;
  const limit = args.limit ?? DEFAULT_HISTORY_LIMIT;
  const entity = entityOfType(entityType);
  const priceItem = entityType === 'price_item';
  const key = priceItem ? sql`product_external_id` : sql`external_id`;
  const pricelist = priceItem ? sql`pricelist_external_id` : sql`NULL::text AS pricelist_external_id`;
  const records = await prisma.$queryRaw<Array<{ id: number; pricelist_external_id: string | null }>>(sql`
    SELECT id, ${pricelist}
       FROM ${trackedTable(entity.table)} WHERE ${key} = ${args.externalId}`);
  if (records.length === 0) throw notFound(priceItem ? 'Price items of product' : capitalize(entity.noun.one), args.externalId);
  const pricelists = new Map(records.map((r) => [r.id, r.pricelist_external_id]));
  const ids = JSON.stringify([...pricelists.keys()]);
  const rows = await prisma.$queryRaw<HistoryRow[]>`
    SELECT ${SELECT_ENTRY} FROM change_history AS h
      WHERE h.entity_type = ${entityType} AND h.record_id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::int)
      ORDER BY h.id DESC LIMIT ${limit}::int`;
  return {
    entityType,
    externalId: args.externalId,
    entries: rows.map((row) => toEntry({ ...row, pricelist_external_id: pricelists.get(row.record_id) ?? null })),
  };
}
