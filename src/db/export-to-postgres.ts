import { Client } from 'pg';
import type { Logger } from 'pino';
import type { Database } from './database';
import { migratePostgres } from './database';

/**
 * `sync-gateway export --to postgresql://…` (docs/adr/0026-backup-restore-and-export.md): every
 * table of the stopped embedded store, row for row, into an empty PostgreSQL database that gets
 * the same migrations first. Ids, change stamps, acknowledgements, queue states and encrypted
 * secrets are copied as they are, and every sequence continues where the embedded one stopped, so
 * the installation carries on unchanged once DATABASE_URL points at the new database.
 */

export class ExportRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportRefusedError';
  }
}

export type ExportedTable = { table: string; rows: number };

const BATCH_ROWS = 1_000;
const MIGRATIONS_TABLE = '_prisma_migrations';
const PENDING_COUNTS_TABLE = 'pending_count_deltas';

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function exportToPostgres(db: Database, targetUrl: string, logger?: Logger): Promise<ExportedTable[]> {
  if (!db.embedded) throw new Error('export copies the embedded store; DATABASE_URL must be unset (the source is DATA_DIR)');
  const { pglite } = db.embedded;
  await refuseNonEmptyTarget(targetUrl);
  await migratePostgres(targetUrl, logger);

  const tables = await tablesInDependencyOrder(db);
  const target = new Client({ connectionString: targetUrl, application_name: 'sync-gateway-export' });
  await target.connect();
  try {
    // One transaction: an export that fails half-way leaves the target as empty as it found it.
    await target.query('BEGIN');
    const copied: ExportedTable[] = [];
    for (const table of tables) {
      // The tracked tables' triggers write the target's pending counts as their rows arrive (ADR 0030).
      if (table === PENDING_COUNTS_TABLE) continue;
      const rows = await copyTable(db, target, table);
      const { rows: check } = await target.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quote(table)}`);
      if (check[0]!.n !== rows) throw new Error(`${table}: copied ${rows} rows but the target holds ${check[0]!.n}`);
      copied.push({ table, rows });
    }
    const { rows: sequences } = await pglite.query<{ name: string; last_value: string | null }>(
      `SELECT sequencename AS name, last_value::text FROM pg_sequences WHERE schemaname = 'public'`,
    );
    for (const sequence of sequences) {
      // A sequence never drawn from keeps its start; the others go on after their last value.
      if (sequence.last_value !== null)
        await target.query('SELECT setval($1::regclass, $2::bigint, true)', [quote(sequence.name), sequence.last_value]);
    }
    await target.query('COMMIT');
    return copied;
  } catch (error) {
    await target.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await target.end();
  }
}

/** Empty means: no table of the public schema holds a row (a database migrated but unused is fine). */
async function refuseNonEmptyTarget(targetUrl: string): Promise<void> {
  const client = new Client({ connectionString: targetUrl, application_name: 'sync-gateway-export' });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> $1 ORDER BY 1`,
      [MIGRATIONS_TABLE],
    );
    const holding: string[] = [];
    for (const { name } of tables) {
      const { rows } = await client.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${quote(name)}) AS any`);
      if (rows[0]!.any) holding.push(name);
    }
    if (holding.length > 0) {
      throw new ExportRefusedError(
        `the target database is not empty (rows in ${holding.join(', ')}); export only into a new, empty database`,
      );
    }
  } finally {
    await client.end();
  }
}

/** Tables referenced by foreign keys come before the tables that reference them. */
async function tablesInDependencyOrder(db: Database): Promise<string[]> {
  const { pglite } = db.embedded!;
  const { rows: tables } = await pglite.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> $1 ORDER BY 1`,
    [MIGRATIONS_TABLE],
  );
  const { rows: references } = await pglite.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
      WHERE k.contype = 'f' AND c.relname <> p.relname`,
  );
  const ordered: string[] = [];
  const visiting = new Set<string>();
  const visit = (table: string) => {
    if (ordered.includes(table) || visiting.has(table)) return;
    visiting.add(table);
    for (const r of references) if (r.child === table) visit(r.parent);
    ordered.push(table);
  };
  for (const t of tables) visit(t.name);
  return ordered;
}

/**
 * Rows travel as JSON (row_to_json on the embedded side, json_populate_recordset on the other):
 * every column type of the schema (bytea, jsonb, arrays, enums, timestamps) round-trips through its
 * text form unchanged, with no per-column code to keep in step with the schema.
 */
async function copyTable(db: Database, target: Client, table: string): Promise<number> {
  const { pglite } = db.embedded!;
  let copied = 0;
  await pglite.transaction(async (tx) => {
    await tx.query(`DECLARE export_rows NO SCROLL CURSOR FOR SELECT row_to_json(r)::text AS j FROM ${quote(table)} r`);
    for (;;) {
      const { rows } = await tx.query<{ j: string }>(`FETCH ${BATCH_ROWS} FROM export_rows`);
      if (rows.length === 0) break;
      await target.query(`INSERT INTO ${quote(table)} SELECT * FROM json_populate_recordset(NULL::${quote(table)}, $1::json)`, [
        `[${rows.map((r) => r.j).join(',')}]`,
      ]);
      copied += rows.length;
    }
    await tx.query('CLOSE export_rows');
  });
  return copied;
}
