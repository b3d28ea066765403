import { validationFailed } from '../errors/app-error';
import { changeListPage, type ChangeListSource, type PageArgs } from './page';
import type { PageShape } from './results';
import { previousValues } from './tracked-fields';
import { TRACKED_ENTITIES, type AnyTrackedEntity } from './tracked-entities';

/**
 * The pending records of one entity type as an operator reads them (the console's Pending page):
 * one shape for every entity, its changed fields with their value before (`previous`, as the
 * change list shows it) and now.
 */
export type PendingRecordShape = {
  id: number;
  revision: number;
  entityType: string;
  /** What an operator names the record by: the external id; supplier/product of a stock entry, pricelist/product of a price. */
  key: string;
  /** What `history(entityType, externalId)` takes for it; null for stock entries, which keep none. */
  historyExternalId: string | null;
  isNew: boolean;
  changedFields: string[];
  previous: Record<string, unknown> | null;
  current: Record<string, unknown>;
  updatedAt: Date;
};

export const PENDING_ENTITY_TYPES: readonly string[] = TRACKED_ENTITIES.map((e) => e.entityType);

type Row = Record<string, unknown> & { id: number; revision: number; updatedAt: Date };

/**
 * A page of the pending records of `entityType`, oldest change first, read with the change list's
 * own statement and a reader of null: the page marks nothing as listed. An admin session reading
 * the console must not widen what a webshop's acknowledgement by id covers (ADR 0002, 0044), so
 * this read never names a reader, whoever asks.
 */
export async function pendingRecords(
  db: ChangeListSource,
  entityType: string,
  args: PageArgs,
  channelId: number | null = null,
): Promise<PageShape<PendingRecordShape>> {
  const entity = TRACKED_ENTITIES.find((e) => e.entityType === entityType);
  if (!entity) {
    throw validationFailed([
      { field: 'entityType', message: `Unknown entity type "${entityType}"; one of ${PENDING_ENTITY_TYPES.join(', ')}` },
    ]);
  }
  // No `since`: the page is every pending record, and its total the O(1) pending counter.
  const page = await changeListPage<Row>(db, entity.table, { key: null, channelId }, { limit: args.limit, offset: args.offset });
  return { payload: page.payload.map((row) => shapeOf(entity, row)), meta: page.meta };
}

const camel = (column: string) => column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

function shapeOf(entity: AnyTrackedEntity, row: Row): PendingRecordShape {
  const base = { id: row.id, revision: row.revision, entityType: entity.entityType, updatedAt: row.updatedAt };
  if (entity.entityType === 'stock') {
    // A stock entry is pending for a change of quantity; previousQuantity is its value before.
    const isNew = row['previousQuantity'] === null;
    return {
      ...base,
      key: `${String(row['supplierExternalId'])}/${String(row['productExternalId'])}`,
      historyExternalId: null,
      isNew,
      changedFields: ['quantity'],
      previous: isNew ? null : { quantity: row['previousQuantity'] },
      current: { quantity: row['quantity'] },
    };
  }
  if (entity.entityType === 'price_item') {
    // A price is pending for a change of price or dates; previousPrice is the price before.
    const isNew = row['isNew'] === true;
    return {
      ...base,
      key: `${String(row['pricelistExternalId'])}/${String(row['productExternalId'])}`,
      historyExternalId: String(row['productExternalId']),
      isNew,
      changedFields: ['price'],
      previous: isNew || row['previousPrice'] === null ? null : { price: row['previousPrice'] },
      current: { price: row['price'], start_date: row['startDate'] ?? null, end_date: row['endDate'] ?? null },
    };
  }
  const changedFields = (row['changedFields'] as string[] | null) ?? [];
  const data = (row['data'] ?? {}) as Record<string, unknown>;
  const isNew = row['isNew'] === true;
  return {
    ...base,
    key: String(row['externalId']),
    historyExternalId: String(row['externalId']),
    isNew,
    changedFields,
    previous: previousValues({
      isNew,
      changedFields,
      pendingValues: row['pendingValues'],
      ackedRevision: Number(row['ackedRevision'] ?? 0),
    }),
    // A field is in data as the ERP sent it, or a column of its own (a partner's parent, an order's direction).
    current: Object.fromEntries(changedFields.map((f) => [f, Object.hasOwn(data, f) ? data[f] : (row[camel(f)] ?? null)])),
  };
}
