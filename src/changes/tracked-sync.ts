import type { PrismaClient } from '../generated/prisma/client';
import { changedFieldNames, mergeFields, type FieldMap } from './diff';
import { pendingFieldsSql, type SqlRunner, type TrackedTableName } from './tracked-table';

/** One valid inbound record, already validated by its domain. */
export type IncomingRecord = {
  externalId: string;
  /** undefined: not sent, keep the stored value. */
  erpId?: number | null | undefined;
  fields: FieldMap;
};

export type RecordOutcome = 'created' | 'updated' | 'unchanged';

type StoredRow = {
  id: number;
  external_id: string;
  erp_id: number | null;
  data: FieldMap;
  revision: number;
  field_revisions: Record<string, number>;
};

type WorkingState = {
  id: number | undefined;
  externalId: string;
  erpId: number | null;
  data: FieldMap;
  revision: number;
  fieldRevisions: Record<string, number>;
  dirty: boolean;
};

const ERP_ID_FIELD = 'erp_id';
const MAX_ATTEMPTS = 3;

class ConcurrentInsertError extends Error {}

/**
 * Upserts a batch into a tracked table in one transaction: locks the stored rows, diffs field
 * by field, inserts the new rows and updates the changed ones with one set-based statement each.
 * Records are applied in request order, so a later record with the same external id wins.
 */
export async function upsertTracked(
  prisma: PrismaClient,
  table: TrackedTableName,
  records: readonly IncomingRecord[],
  context: string,
): Promise<RecordOutcome[]> {
  if (records.length === 0) return [];
  for (let attempt = 1; ; attempt++) {
    try {
      return await prisma.$transaction((tx) => upsertInTransaction(tx, table, records, context), {
        maxWait: 30_000,
        timeout: 120_000,
      });
    } catch (error) {
      // Another request inserted one of our new external ids first: the retry sees its row.
      if (!(error instanceof ConcurrentInsertError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

async function upsertInTransaction(
  tx: SqlRunner,
  table: TrackedTableName,
  records: readonly IncomingRecord[],
  context: string,
): Promise<RecordOutcome[]> {
  const externalIds = [...new Set(records.map((r) => r.externalId))];
  const stored = await tx.$queryRawUnsafe<StoredRow[]>(
    `SELECT id, external_id, erp_id, data, revision, field_revisions FROM "${table}"
      WHERE external_id IN (SELECT jsonb_array_elements_text($1::jsonb))
      ORDER BY id FOR UPDATE`,
    JSON.stringify(externalIds),
  );
  const states = new Map<string, WorkingState>(
    stored.map((row) => [
      row.external_id,
      {
        id: row.id,
        externalId: row.external_id,
        erpId: row.erp_id,
        data: row.data,
        // Every change of this batch to a stored record shares one new revision.
        revision: row.revision + 1,
        fieldRevisions: row.field_revisions,
        dirty: false,
      },
    ]),
  );

  const outcomes = records.map((record) => applyRecord(states, record));
  const all = [...states.values()];
  await insertNew(tx, table, all.filter((s) => s.id === undefined), context);
  await updateChanged(tx, table, all.filter((s) => s.id !== undefined && s.dirty), context);
  return outcomes;
}

function applyRecord(states: Map<string, WorkingState>, record: IncomingRecord): RecordOutcome {
  const state = states.get(record.externalId);
  if (!state) {
    const fieldNames = Object.keys(record.fields);
    if (record.erpId !== undefined) fieldNames.push(ERP_ID_FIELD);
    states.set(record.externalId, {
      id: undefined,
      externalId: record.externalId,
      erpId: record.erpId ?? null,
      data: record.fields,
      revision: 1,
      fieldRevisions: Object.fromEntries(fieldNames.map((f) => [f, 1])),
      dirty: true,
    });
    return 'created';
  }
  const changed = changedFieldNames(state.data, record.fields);
  if (record.erpId !== undefined && record.erpId !== state.erpId) changed.push(ERP_ID_FIELD);
  if (changed.length === 0) return 'unchanged';
  state.data = mergeFields(state.data, record.fields);
  if (record.erpId !== undefined) state.erpId = record.erpId;
  for (const field of changed) state.fieldRevisions[field] = state.revision;
  state.dirty = true;
  return 'updated';
}

async function insertNew(
  tx: SqlRunner,
  table: TrackedTableName,
  rows: WorkingState[],
  context: string,
): Promise<void> {
  if (rows.length === 0) return;
  const inserted = await tx.$queryRawUnsafe<Array<{ n: number }>>(
    `WITH ins AS (
       INSERT INTO "${table}" (external_id, erp_id, data, context, revision, acked_revision,
                               field_revisions, changed_fields, is_new, pending, created_at, updated_at)
       SELECT v.external_id, v.erp_id, v.data, $2, 1, 0, v.field_revisions,
              ${pendingFieldsSql('v.field_revisions', '0')}, true, true, now(), now()
         FROM jsonb_to_recordset($1::jsonb) AS v(external_id text, erp_id int, data jsonb, field_revisions jsonb)
       ON CONFLICT (external_id) DO NOTHING
       RETURNING 1)
     SELECT count(*)::int AS n FROM ins`,
    JSON.stringify(
      rows.map((s) => ({
        external_id: s.externalId,
        erp_id: s.erpId,
        data: s.data,
        field_revisions: s.fieldRevisions,
      })),
    ),
    context,
  );
  if (inserted[0]?.n !== rows.length) throw new ConcurrentInsertError();
}

async function updateChanged(
  tx: SqlRunner,
  table: TrackedTableName,
  rows: WorkingState[],
  context: string,
): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRawUnsafe(
    `UPDATE "${table}" AS t SET
        erp_id = v.erp_id, data = v.data, context = $2, revision = v.revision,
        field_revisions = v.field_revisions,
        changed_fields = ${pendingFieldsSql('v.field_revisions', 't.acked_revision')},
        pending = true, updated_at = now()
       FROM jsonb_to_recordset($1::jsonb) AS v(id int, erp_id int, data jsonb, revision int, field_revisions jsonb)
      WHERE t.id = v.id`,
    JSON.stringify(
      rows.map((s) => ({
        id: s.id,
        erp_id: s.erpId,
        data: s.data,
        revision: s.revision,
        field_revisions: s.fieldRevisions,
      })),
    ),
    context,
  );
}
