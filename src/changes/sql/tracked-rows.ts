import type { FieldMap } from '../diff';
import type { HistoryTable, PushedBy } from '../history-writes';
import { column, join, sql, type Sql } from './sql';

/**
 * The rows upsertTracked (upsert.ts) writes, and what its three writes share: the rows as JSON,
 * and the column lists their statements read them with.
 */

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

/** The rows as the JSON the writes read with jsonb_to_recordset; stored rows with their history. */
export function rowsJson(rows: readonly RowToWrite[], withId: boolean): string {
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
export const recordsetColumns = (spec: TrackedTableSpec): Sql =>
  join(
    spec.columns.map((c) => sql`, ${column(c.name)} ${SQL_TYPES[c.sqlType]}`),
    '',
  );

/** `, prefix.name` of each column. */
export const columnList = (spec: TrackedTableSpec, prefix: Sql | undefined): Sql =>
  join(
    spec.columns.map((c) => (prefix ? sql`, ${prefix}.${column(c.name)}` : sql`, ${column(c.name)}`)),
    '',
  );

/** The alias of the JSON rows in the writes' statements. */
export const V = sql`v`;
