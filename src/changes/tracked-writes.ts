import type { FieldMap } from './diff';
import { historyEntityType, type HistoryTable, type PushedBy } from './history-writes';
import type { SqlRunner } from './ledger';
import { createdValuesSql, HISTORY_COLUMNS, pendingFieldsSql } from './sql/fragments';
import { column, join, sql, trackedTable, type Sql } from './sql/sql';

/** The Postgres enum types of tracked columns (prisma/schema.prisma): read as text, written as the enum. */
const ENUM_SQL_TYPES = ['sale_order_direction', 'partner_type'] as const;

/**
 * A top-level column of a tracked table that is diffed like a data field (erp_id, type, …). An
 * enum column names its Postgres enum type: the JSON rows are read into it directly, so an
 * INSERT or UPDATE from them needs no cast.
 */
export type TrackedColumn = { name: string; sqlType: 'int' | 'text' | 'double precision' | (typeof ENUM_SQL_TYPES)[number] };

/** Each column type as SQL. */
const SQL_TYPES: Record<TrackedColumn['sqlType'], Sql> = {
  int: sql`int`,
  text: sql`text`,
  'double precision': sql`double precision`,
  sale_order_direction: sql`sale_order_direction`,
  partner_type: sql`partner_type`,
};

/** The column in a SELECT list, an enum as its text (as the API validated and diffs it). */
export const selectedColumn = (c: TrackedColumn): Sql =>
  (ENUM_SQL_TYPES as readonly string[]).includes(c.sqlType) ? sql`${column(c.name)}::text AS ${column(c.name)}` : column(c.name);

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

/** `, name type` of each column, for jsonb_to_recordset's column list. */
const recordsetColumns = (spec: TrackedTableSpec): Sql =>
  join(
    spec.columns.map((c) => sql`, ${column(c.name)} ${SQL_TYPES[c.sqlType]}`),
    '',
  );

/** `, prefix.name` of each column. */
const columnList = (spec: TrackedTableSpec, prefix: Sql | undefined): Sql =>
  join(
    spec.columns.map((c) => (prefix ? sql`, ${prefix}.${column(c.name)}` : sql`, ${column(c.name)}`)),
    '',
  );

const V = sql`v`;

/** Thrown when another transaction inserted one of the batch's new external ids first. */
export class ConcurrentInsertError extends Error {}

/**
 * Inserts the new rows, gives them their ids, and writes their history (revision 1, no old
 * values) in the same statement.
 */
export async function insertNew(tx: SqlRunner, spec: TrackedTableSpec, rows: RowToWrite[], push: PushStamp): Promise<void> {
  if (rows.length === 0) return;
  const inserted = await tx.$queryRaw<Array<{ id: number; external_id: string }>>(sql`
    WITH v AS (
       SELECT * FROM jsonb_to_recordset(${rowsJson(rows, false)}::jsonb)
         AS v(external_id text, data jsonb, field_revisions jsonb, source_updated_at timestamptz${recordsetColumns(spec)})
     ), inserted AS (
       INSERT INTO ${trackedTable(spec.table)} (external_id, data, context, revision, acked_revision, field_revisions,
                                    changed_fields, is_new, pending, created_at, updated_at, source_updated_at${columnList(spec, undefined)})
       SELECT v.external_id, v.data, ${push.context}, 1, 0, v.field_revisions,
              ${pendingFieldsSql(sql`v.field_revisions`, sql`0`)}, true, true, now(), ${push.stamp}::timestamptz, v.source_updated_at${columnList(spec, V)}
         FROM v
       ON CONFLICT (external_id) DO NOTHING
       RETURNING id, external_id
     ), history AS (
       INSERT INTO change_history ${HISTORY_COLUMNS}
       SELECT ${historyEntityType(spec.table)}, i.id, 1, ${push.pushedBy}, ${push.stamp}::timestamptz, NULL, ${createdValuesSql(
         V,
         spec.columns.map((c) => c.name),
       )}
         FROM inserted AS i JOIN v ON v.external_id = i.external_id
     )
     SELECT id, external_id FROM inserted`);
  if (inserted.length !== rows.length) throw new ConcurrentInsertError();
  const ids = new Map(inserted.map((r) => [r.external_id, r.id]));
  for (const row of rows) row.id = ids.get(row.externalId);
}

/** Updates the changed rows and writes one history row each (old and new value of each changed field). */
export async function updateChanged(tx: SqlRunner, spec: TrackedTableSpec, rows: RowToWrite[], push: PushStamp): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRaw(sql`
    WITH v AS (
       SELECT * FROM jsonb_to_recordset(${rowsJson(rows, true)}::jsonb)
         AS v(id int, revision int, external_id text, data jsonb, field_revisions jsonb, source_updated_at timestamptz,
              pending_values jsonb, old_values jsonb, new_values jsonb${recordsetColumns(spec)})
     ), history AS (
       INSERT INTO change_history ${HISTORY_COLUMNS}
       SELECT ${historyEntityType(spec.table)}, v.id, v.revision, ${push.pushedBy}, ${push.stamp}::timestamptz, v.old_values, v.new_values FROM v
     )
     UPDATE ${trackedTable(spec.table)} AS t SET
        data = v.data, context = ${push.context}, revision = v.revision, field_revisions = v.field_revisions,
        changed_fields = ${pendingFieldsSql(sql`v.field_revisions`, sql`t.acked_revision`)},
        pending = true, updated_at = ${push.stamp}::timestamptz, source_updated_at = v.source_updated_at, pending_values = v.pending_values${join(
          spec.columns.map((c) => sql`, ${column(c.name)} = v.${column(c.name)}`),
          '',
        )}
       FROM v
      WHERE t.id = v.id`);
}

/**
 * Rows whose data did not change but whose source time moved on keep the newer time, so that a
 * delayed older push is still recognised as stale. Neither revision nor updated_at moves: there
 * is nothing new for the webshop, hence no change clock and no history either (the rows are locked already).
 */
export async function updateSourceTimes(tx: SqlRunner, spec: TrackedTableSpec, rows: RowToWrite[]): Promise<void> {
  if (rows.length === 0) return;
  const times = JSON.stringify(rows.map((s) => ({ id: s.id, source_updated_at: s.sourceUpdatedAt })));
  await tx.$executeRaw(sql`
    UPDATE ${trackedTable(spec.table)} AS t SET source_updated_at = v.source_updated_at
      FROM jsonb_to_recordset(${times}::jsonb) AS v(id int, source_updated_at timestamptz)
     WHERE t.id = v.id`);
}
