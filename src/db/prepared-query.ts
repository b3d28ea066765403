import { createHash } from 'node:crypto';
import { types, type FieldDef, type Pool } from 'pg';

/**
 * Hot statements run through the pg pool directly as named prepared statements (ADR 0033): no
 * Prisma raw-query layer, and PostgreSQL parses each distinct text once per connection instead of
 * on every call (it may still plan each call for its parameters). Values come back as Prisma's
 * raw queries return them, for the column types below; any other type is refused loudly rather
 * than handed on in another shape.
 */

export type PreparedResult = { columns: string[]; rows: unknown[][] };

const OID = { bool: 16, int4: 23, text: 25, json: 114, float8: 701, varchar: 1043, date: 1082, timestamptz: 1184 } as const;
const ARRAY_OID = { textArray: 1009, varcharArray: 1015, int4Array: 1007 } as const;
const JSONB_OID = 3802;

/** Types whose pg parsing equals Prisma's result: numbers, booleans, strings, Dates, parsed JSON, arrays of those. */
const PRISMA_COMPATIBLE = new Set<number>([...Object.values(OID), ...Object.values(ARRAY_OID), JSONB_OID]);

/** Prisma reads a date column as UTC midnight; pg's default parser would give local midnight. */
const parseUtcDate = (value: string): Date => new Date(`${value}T00:00:00Z`);

export const prismaShapes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === OID.date ? parseUtcDate : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
};

/** One name per distinct text (the texts are a bounded set written in the code, never input). */
const names = new Map<string, string>();
/** Bumped when a plan went stale (a migration changed a table under `SELECT *`): every text gets a new name. */
let generation = 0;

function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `sg_${createHash('sha256').update(text).digest('hex').slice(0, 24)}_${generation}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Runs `text` as one named prepared statement on a connection of `pool` (autocommit: one
 * statement, one snapshot, as a raw query outside a transaction). A statement prepared before
 * a migration changed its result columns fails once per connection with "cached plan must not
 * change result type" before it executes anything; it is then prepared afresh under a new name.
 */
export async function queryPrepared(pool: Pool, text: string, values: unknown[]): Promise<PreparedResult> {
  try {
    return await run(pool, text, values);
  } catch (error) {
    if (!isStalePlan(error)) throw error;
    generation++;
    names.clear();
    return run(pool, text, values);
  }
}

async function run(pool: Pool, text: string, values: unknown[]): Promise<PreparedResult> {
  const result = await pool.query<unknown[]>({ name: statementName(text), text, values, rowMode: 'array', types: prismaShapes });
  return { columns: await checkedColumns(pool, result.fields), rows: result.rows };
}

/**
 * The OIDs of the database's enum types: pg parses an enum (an unknown OID) to its text, as
 * Prisma returns it. Their OIDs differ per database, so they are looked up, per pool, when a
 * result has a column type not known yet.
 */
const enumOids = new WeakMap<object, Set<number>>();

type Queryable = { query<R extends object>(text: string): Promise<{ rows: R[] }> };

/** The result's column names, once every column's type is known to come back as Prisma returns it. */
export async function checkedColumns(db: Queryable, fields: readonly FieldDef[]): Promise<string[]> {
  let known = enumOids.get(db);
  if (fields.some((f) => !PRISMA_COMPATIBLE.has(f.dataTypeID) && !known?.has(f.dataTypeID))) {
    const { rows } = await db.query<{ oid: number }>(`SELECT oid::int AS oid FROM pg_type WHERE typtype = 'e'`);
    known = new Set(rows.map((r) => r.oid));
    enumOids.set(db, known);
  }
  return fields.map((f) => (known?.has(f.dataTypeID) ? f.name : checkedColumn(f)));
}

function checkedColumn(field: FieldDef): string {
  if (!PRISMA_COMPATIBLE.has(field.dataTypeID)) {
    throw new Error(
      `column ${field.name} has type oid ${field.dataTypeID}, whose shape as Prisma returns it is not mapped (src/db/prepared-query.ts)`,
    );
  }
  return field.name;
}

function isStalePlan(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}
