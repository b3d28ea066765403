import type { FieldMap } from './diff';
import { HISTORY_COLUMNS, createdValuesSql, historyEntityType, type HistoryTable, type PushedBy } from './history-writes';
import { pendingFieldsSql, trackedTable, type SqlRunner } from './ledger';

/** The Postgres enum types of tracked columns (prisma/schema.prisma): read as text, written as the enum. */
const ENUM_SQL_TYPES = ['sale_order_direction', 'partner_type'] as const;

/**
 * A top-level column of a tracked table that is diffed like a data field (erp_id, type, …). An
 * enum column names its Postgres enum type: the JSON rows are read into it directly, so an
 * INSERT or UPDATE from them needs no cast.
 */
export type TrackedColumn = { name: string; sqlType: 'int' | 'text' | 'double precision' | (typeof ENUM_SQL_TYPES)[number] };

/** The column in a SELECT list, an enum as its text (as the API validated and diffs it). */
export const selectedColumn = (c: TrackedColumn): string =>
  (ENUM_SQL_TYPES as readonly string[]).includes(c.sqlType) ? `${c.name}::text AS ${c.name}` : c.name;

/** A table written by upsertTracked; each keeps a change history. */
export type TrackedTableSpec = { table: Exclude<HistoryTable, 'price_items'>; columns: readonly TrackedColumn[] };

/** {field: [[revision, value before it], …]} of unacknowledged changes (ADR 0028). */
export type PendingValues = Record<string, Array<[number, unknown]>>;

/** What upsertTracked writes of one row: the row as it stands after the batch, and what the batch changed. */
export type RowToWrite = {
  id: number | undefined;
  externalId: string;
  columns: Record<string, unknown>;
  data: FieldMap;
  revision: number;
  fieldRevisions: Record<string, number>;
  changed: ReadonlySet<string>;
  /** Stored value of each changed field before this batch (stored rows only): the history's old values. */
  before: FieldMap;
  sourceUpdatedAt: Date | null;
  pendingValues: PendingValues;
};

/** One push's stamp and caller, shared by every row it writes. */
export type PushStamp = { context: string; stamp: Date; pushedBy: PushedBy };

/** The value of a changed field after the batch: a column's or a data field's. */
const valueAfter = (row: RowToWrite, field: string): unknown =>
  Object.hasOwn(row.columns, field) ? row.columns[field] : (row.data[field] ?? null);

function rowsJson(rows: readonly RowToWrite[], withId: boolean): string {
  return JSON.stringify(
    rows.map((s) => ({
      ...(withId
        ? {
            id: s.id,
            revision: s.revision,
            pending_values: s.pendingValues,
            old_values: s.before,
            new_values: Object.fromEntries([...s.changed].map((f) => [f, valueAfter(s, f)])),
          }
        : {}),
      external_id: s.externalId,
      data: s.data,
      field_revisions: s.fieldRevisions,
      source_updated_at: s.sourceUpdatedAt,
      ...s.columns,
    })),
  );
}

const recordsetColumns = (spec: TrackedTableSpec) => spec.columns.map((c) => `, ${c.name} ${c.sqlType}`).join('');

/** Thrown when another transaction inserted one of the batch's new external ids first. */
export class ConcurrentInsertError extends Error {}

/**
 * Inserts the new rows, gives them their ids, and writes their history (revision 1, no old
 * values) in the same statement.
 */
export async function insertNew(tx: SqlRunner, spec: TrackedTableSpec, rows: RowToWrite[], push: PushStamp): Promise<void> {
  if (rows.length === 0) return;
  const cols = spec.columns.map((c) => `, ${c.name}`).join('');
  const vcols = spec.columns.map((c) => `, v.${c.name}`).join('');
  const inserted = await tx.$queryRawUnsafe<Array<{ id: number; external_id: string }>>(
    `WITH v AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS v(external_id text, data jsonb, field_revisions jsonb, source_updated_at timestamptz${recordsetColumns(spec)})
     ), inserted AS (
       INSERT INTO ${trackedTable(spec.table)} (external_id, data, context, revision, acked_revision, field_revisions,
                                    changed_fields, is_new, pending, created_at, updated_at, source_updated_at${cols})
       SELECT v.external_id, v.data, $2, 1, 0, v.field_revisions,
              ${pendingFieldsSql('v.field_revisions', '0')}, true, true, now(), $3::timestamptz, v.source_updated_at${vcols}
         FROM v
       ON CONFLICT (external_id) DO NOTHING
       RETURNING id, external_id
     ), history AS (
       INSERT INTO change_history ${HISTORY_COLUMNS}
       SELECT $4, i.id, 1, $5, $3::timestamptz, NULL, ${createdValuesSql(
         'v',
         spec.columns.map((c) => c.name),
       )}
         FROM inserted AS i JOIN v ON v.external_id = i.external_id
     )
     SELECT id, external_id FROM inserted`,
    rowsJson(rows, false),
    push.context,
    push.stamp,
    historyEntityType(spec.table),
    push.pushedBy,
  );
  if (inserted.length !== rows.length) throw new ConcurrentInsertError();
  const ids = new Map(inserted.map((r) => [r.external_id, r.id]));
  for (const row of rows) row.id = ids.get(row.externalId);
}

/** Updates the changed rows and writes one history row each (old and new value of each changed field). */
export async function updateChanged(tx: SqlRunner, spec: TrackedTableSpec, rows: RowToWrite[], push: PushStamp): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRawUnsafe(
    `WITH v AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS v(id int, revision int, external_id text, data jsonb, field_revisions jsonb, source_updated_at timestamptz,
              pending_values jsonb, old_values jsonb, new_values jsonb${recordsetColumns(spec)})
     ), history AS (
       INSERT INTO change_history ${HISTORY_COLUMNS}
       SELECT $4, v.id, v.revision, $5, $3::timestamptz, v.old_values, v.new_values FROM v
     )
     UPDATE ${trackedTable(spec.table)} AS t SET
        data = v.data, context = $2, revision = v.revision, field_revisions = v.field_revisions,
        changed_fields = ${pendingFieldsSql('v.field_revisions', 't.acked_revision')},
        pending = true, updated_at = $3::timestamptz, source_updated_at = v.source_updated_at, pending_values = v.pending_values${spec.columns.map((c) => `, ${c.name} = v.${c.name}`).join('')}
       FROM v
      WHERE t.id = v.id`,
    rowsJson(rows, true),
    push.context,
    push.stamp,
    historyEntityType(spec.table),
    push.pushedBy,
  );
}

/**
 * Rows whose data did not change but whose source time moved on keep the newer time, so that a
 * delayed older push is still recognised as stale. Neither revision nor updated_at moves: there
 * is nothing new for the webshop, hence no change clock and no history either (the rows are locked already).
 */
export async function updateSourceTimes(tx: SqlRunner, spec: TrackedTableSpec, rows: RowToWrite[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRawUnsafe(
    `UPDATE ${trackedTable(spec.table)} AS t SET source_updated_at = v.source_updated_at
       FROM jsonb_to_recordset($1::jsonb) AS v(id int, source_updated_at timestamptz)
      WHERE t.id = v.id`,
    JSON.stringify(rows.map((s) => ({ id: s.id, source_updated_at: s.sourceUpdatedAt }))),
  );
}
