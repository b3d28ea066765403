import { empty, join, raw, sql, type Sql } from '@prisma/client-runtime-utils';
import { TRACKED_TABLES, type TrackedTableName } from '../tracked-entities';

/**
 * How the ledger's statements are written (ADR 0036): tagged `sql` templates, Prisma's own
 * (sql-template-tag), nested as fragments. A value is always a parameter; text enters a statement
 * only as a template's literal parts or through the two quoting helpers below, the one place that
 * turns a name into SQL text. A statement runs with `$queryRaw(statement)` on Prisma or on the pg
 * runners (src/db/pg-transaction.ts), or as a named prepared statement from its `text` and `values`.
 */
export { empty, join, sql, type Sql };

/** Names of tables and columns: lower-case words, as prisma/schema.prisma maps them. */
const IDENTIFIER = /^[a-z][a-z0-9_]*$/;

/** A tracked table's quoted name. Typed to the tracked-table union, and checked at run time too. */
export function trackedTable(name: TrackedTableName): Sql {
  return raw(`"${checkedTable(name)}"`);
}

/**
 * A tracked table's name as a string literal, for `table_name` columns (counters, cursors,
 * acknowledgements): a constant of the statement, as the planner of a prepared statement needs it.
 */
export function trackedTableLiteral(name: TrackedTableName): Sql {
  return raw(`'${checkedTable(name)}'`);
}

/** A column's quoted name: names written in the code and the entity descriptors, never input. */
export function column(name: string): Sql {
  if (!IDENTIFIER.test(name)) throw new Error(`Not a column name: ${name}`);
  return raw(`"${name}"`);
}

function checkedTable(name: TrackedTableName): TrackedTableName {
  if (!TRACKED_TABLES.includes(name)) throw new Error(`Not a tracked table: ${String(name)}`);
  return name;
}
