import { readMigrationList } from '../db/migrator';

/**
 * Row-for-row copies of the service's tables (backup, restore, export, the PGlite import):
 * rows travel as JSON, `row_to_json` on the reading side and `json_populate_recordset` on the
 * writing side, so every column type of the schema (jsonb, arrays, enums, timestamps, bytea)
 * round-trips through its text form with no per-table code to keep in step with the schema.
 */

/** What is read from and written to: a pg Client or PoolClient, or a PGlite instance (one session each). */
export type Sql = { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> };

/**
 * Not copied. `_prisma_migrations`: the target is migrated by this build. `pending_count_deltas`:
 * the tracked tables' statement triggers (ADR 0030) append the target's counts as rows arrive, so
 * copying them too would count every pending row twice.
 */
export const NOT_COPIED: ReadonlySet<string> = new Set(['_prisma_migrations', 'pending_count_deltas']);

/**
 * Copied after every other table: the channels' state (ADR 0045). While the tracked tables' rows
 * arrive, the triggers see no channel cursor and append nothing for the channels, whose counts
 * then arrive as the source has them (`channels` itself goes first: tokens reference it).
 */
const COPIED_LAST: readonly string[] = ['channel_cursors', 'channel_acks', 'channel_pending_deltas'];

/** Rows per FETCH and per INSERT: bounds the memory of a copy whatever the store's size. */
export const BATCH_ROWS = 1_000;

/** A self-reference (partners.parent_id → partners.id): filled in once the whole table is in. */
export type SelfReference = { column: string; key: string };
export type TableShape = { name: string; columns: string[]; selfReferences: SelfReference[] };
export type SequenceValue = { name: string; lastValue: string };
export type CopiedTable = { table: string; rows: number };

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const table = (name: string) => `public.${quote(name)}`;
const rowsOf = async <R>(db: Sql, text: string, params?: unknown[]) => (await db.query(text, params)).rows as R[];

/** Every table of schema public but NOT_COPIED, referenced tables before the tables referencing them. */
export async function describeTables(db: Sql): Promise<TableShape[]> {
  const columns = await rowsOf<{ table: string; column: string }>(
    db,
    `SELECT c.relname AS table, a.attname AS column
       FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY c.relname, a.attnum`,
  );
  const references = await rowsOf<{ child: string; parent: string; column: string | null; key: string | null }>(
    db,
    `SELECT c.relname AS child, p.relname AS parent,
            (SELECT attname FROM pg_attribute WHERE attrelid = k.conrelid AND attnum = k.conkey[1]) AS column,
            (SELECT attname FROM pg_attribute WHERE attrelid = k.confrelid AND attnum = k.confkey[1]) AS key
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
      WHERE k.contype = 'f' AND c.relnamespace = 'public'::regnamespace`,
  );
  const shapes = new Map<string, TableShape>();
  for (const { table: name, column } of columns) {
    if (NOT_COPIED.has(name)) continue;
    const shape = shapes.get(name) ?? { name, columns: [], selfReferences: [] };
    shape.columns.push(column);
    shapes.set(name, shape);
  }
  for (const r of references) {
    // Single-column self-references only: the schema has no other kind (a composite one would fail loudly on insert).
    if (r.child === r.parent && r.column && r.key) shapes.get(r.child)?.selfReferences.push({ column: r.column, key: r.key });
  }
  const ordered: TableShape[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (visiting.has(name) || !shapes.has(name)) return;
    visiting.add(name);
    for (const r of references) if (r.child === name && r.parent !== name) visit(r.parent);
    ordered.push(shapes.get(name)!);
  };
  for (const name of [...shapes.keys()].sort()) visit(name);
  return [...ordered.filter((t) => !COPIED_LAST.includes(t.name)), ...ordered.filter((t) => COPIED_LAST.includes(t.name))];
}

/**
 * A table's rows as JSON texts, BATCH_ROWS at a time, through a cursor: inside the caller's
 * transaction (its snapshot), never the whole table in memory.
 */
export async function* readRows(db: Sql, name: string): AsyncGenerator<string[]> {
  await db.query(`DECLARE sgw_copy NO SCROLL CURSOR FOR SELECT row_to_json(r)::text AS j FROM ${table(name)} r`);
  try {
    for (;;) {
      const rows = await rowsOf<{ j: string }>(db, `FETCH ${BATCH_ROWS} FROM sgw_copy`);
      if (rows.length === 0) return;
      // A raw newline can only be whitespace in JSON text (a json column's): one row stays one line.
      yield rows.map(({ j }) => (j.includes('\n') ? j.replaceAll('\n', ' ') : j));
    }
  } finally {
    await db.query('CLOSE sgw_copy').catch(() => undefined);
  }
}

/**
 * Writes one table inside the caller's transaction. Rows name their columns as the source had
 * them; a column the target lacks fails the insert instead of being dropped. Self-referencing
 * columns arrive NULL and are set once every row is in, so that batch order never breaks them.
 */
export function tableWriter(target: Sql, shape: TableShape) {
  const deferred = new Set(shape.selfReferences.map((r) => r.column));
  const staging = (i: number) => `sgw_deferred_${i}`;
  const recordset = `json_populate_recordset(NULL::${table(shape.name)}, $1::json) r`;
  const insert =
    `INSERT INTO ${table(shape.name)} (${shape.columns.map(quote).join(', ')}) ` +
    `SELECT ${shape.columns.map((c) => (deferred.has(c) ? 'NULL' : `r.${quote(c)}`)).join(', ')} FROM ${recordset}`;
  let written = 0;
  let staged = false;
  return {
    async write(rows: string[]): Promise<void> {
      if (rows.length === 0) return;
      const json = `[${rows.join(',')}]`;
      for (const [i, ref] of shape.selfReferences.entries()) {
        if (!staged)
          await target.query(
            `CREATE TEMP TABLE ${staging(i)} ON COMMIT DROP AS SELECT ${quote(ref.key)} AS k, ${quote(ref.column)} AS v FROM ${table(shape.name)} WITH NO DATA`,
          );
        await target.query(
          `INSERT INTO ${staging(i)} SELECT r.${quote(ref.key)}, r.${quote(ref.column)} FROM ${recordset} WHERE r.${quote(ref.column)} IS NOT NULL`,
          [json],
        );
      }
      staged = true;
      await target.query(insert, [json]);
      written += rows.length;
    },
    /** Sets the deferred references and checks the table's count; returns the rows written. */
    async finish(): Promise<number> {
      for (const [i, ref] of staged ? shape.selfReferences.entries() : []) {
        await target.query(
          `UPDATE ${table(shape.name)} t SET ${quote(ref.column)} = d.v FROM ${staging(i)} d WHERE t.${quote(ref.key)} = d.k`,
        );
        await target.query(`DROP TABLE ${staging(i)}`);
      }
      const count = await countRows(target, shape.name);
      if (count !== written) throw new Error(`${shape.name}: wrote ${written} rows but the target holds ${count}`);
      return written;
    },
  };
}

/**
 * Every table from `source` into `target`, each inside a transaction the caller opened (the
 * source's is its snapshot), then the sequences; per-table counts checked on both sides.
 */
export async function copyTables(source: Sql, target: Sql): Promise<CopiedTable[]> {
  const copied: CopiedTable[] = [];
  for (const shape of await describeTables(source)) {
    const writer = tableWriter(target, shape);
    for await (const rows of readRows(source, shape.name)) await writer.write(rows);
    const rows = await writer.finish();
    const expected = await countRows(source, shape.name);
    if (rows !== expected) throw new Error(`${shape.name}: copied ${rows} rows of ${expected}`);
    copied.push({ table: shape.name, rows });
  }
  await setSequences(target, await readSequences(source));
  return copied;
}

/**
 * Sequences drawn from, with their last value. Read at any moment of a snapshot they are at least
 * every id in it (sequences are not transactional), so a copy never hands out an id twice. The
 * sequences of tables not copied are left to the target.
 */
export async function readSequences(db: Sql): Promise<SequenceValue[]> {
  const rows = await rowsOf<{ name: string; last_value: string; owner: string | null }>(
    db,
    `SELECT s.sequencename AS name, s.last_value::text AS last_value, t.relname AS owner
       FROM pg_sequences s
       JOIN pg_class c ON c.relname = s.sequencename AND c.relnamespace = 'public'::regnamespace AND c.relkind = 'S'
       LEFT JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
       LEFT JOIN pg_class t ON t.oid = d.refobjid
      WHERE s.schemaname = 'public' AND s.last_value IS NOT NULL
      ORDER BY 1`,
  );
  return rows.filter((r) => !r.owner || !NOT_COPIED.has(r.owner)).map((r) => ({ name: r.name, lastValue: r.last_value }));
}

export async function setSequences(target: Sql, sequences: SequenceValue[]): Promise<void> {
  for (const { name, lastValue } of sequences)
    await target.query('SELECT setval($1::regclass, $2::bigint, true)', [table(name), lastValue]);
}

export async function countRows(db: Sql, name: string): Promise<number> {
  const [row] = await rowsOf<{ n: string }>(db, `SELECT count(*)::text AS n FROM ${table(name)}`);
  return Number(row!.n);
}

/** Tables of schema public, `_prisma_migrations` aside, holding at least one row. */
export async function tablesHoldingRows(db: Sql): Promise<string[]> {
  const tables = await rowsOf<{ name: string }>(
    db,
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1`,
  );
  const holding: string[] = [];
  for (const { name } of tables) {
    const [row] = await rowsOf<{ any: boolean }>(db, `SELECT EXISTS (SELECT 1 FROM ${table(name)}) AS any`);
    if (row!.any) holding.push(name);
  }
  return holding;
}

/** Pending counts per table and scope as the counters say (ADR 0030): `table/scope` → count. */
export async function pendingCounts(db: Sql): Promise<Record<string, number>> {
  const [exists] = await rowsOf<{ present: boolean }>(db, `SELECT to_regclass('public.pending_count_deltas') IS NOT NULL AS present`);
  if (!exists!.present) return {};
  const rows = await rowsOf<{ key: string; n: string }>(
    db,
    `SELECT table_name || '/' || scope AS key, sum(delta)::text AS n FROM pending_count_deltas GROUP BY 1 HAVING sum(delta) <> 0 ORDER BY 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.key, Number(r.n)]));
}

/** The keys whose counts differ, e.g. `products/: 30 ≠ 29`; empty when the counters agree. */
export function pendingCountDifferences(expected: Record<string, number>, actual: Record<string, number>): string[] {
  const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
  return keys.filter((k) => (expected[k] ?? 0) !== (actual[k] ?? 0)).map((k) => `${k}: ${expected[k] ?? 0} ≠ ${actual[k] ?? 0}`);
}

/** Migrations a database records as applied, in order. */
export async function appliedMigrations(db: Sql): Promise<string[]> {
  const [exists] = await rowsOf<{ present: boolean }>(db, `SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS present`);
  if (!exists!.present) return [];
  const rows = await rowsOf<{ name: string }>(
    db,
    'SELECT DISTINCT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY 1',
  );
  return rows.map((r) => r.name);
}

/** This build's migrations (prisma/migrations), in order. */
export async function buildMigrations(): Promise<string[]> {
  return (await readMigrationList()).migrationDirectories.map((d) => d.path);
}

/**
 * A snapshot to read from: every statement of `work` sees the store as of its first one, whatever
 * commits meanwhile. Output settings are pinned so that the JSON texts do not depend on the session.
 */
export async function inSnapshot<T>(db: Sql, work: () => Promise<T>): Promise<T> {
  return inTransaction(db, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async () => {
    for (const setting of ["TimeZone = 'UTC'", 'extra_float_digits = 3', "bytea_output = 'hex'"]) await db.query(`SET LOCAL ${setting}`);
    return work();
  });
}

/** One transaction: committed when `work` returns, rolled back when it throws. */
export async function inTransaction<T>(db: Sql, begin: string, work: () => Promise<T>): Promise<T> {
  await db.query(begin);
  try {
    const result = await work();
    await db.query('COMMIT');
    return result;
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
