import { open, readdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import type { Logger } from 'pino';
import {
  appliedMigrations,
  buildMigrations,
  copyTables,
  countRows,
  describeTables,
  inSnapshot,
  inTransaction,
  pendingCountDifferences,
  pendingCounts,
  tablesHoldingRows,
  type CopiedTable,
  type Sql,
} from './table-copy';

/**
 * The upgrade from 0.1 (ADR 0042): a data directory of 0.1 holds its store in DATA_DIR/pglite, a
 * PGlite (PostgreSQL compiled to WebAssembly) data directory. On the first start of this version
 * (or `sync-gateway import-pglite`), after the new cluster is migrated, its rows are copied in with
 * PGlite 0.4.6 (the release 0.1 wrote them with), in one transaction; the old directory is then
 * renamed to `pglite.imported-<time>` and kept until the operator removes it. This is the only
 * code that still opens PGlite.
 *
 * Crash-safe: the copy commits before the rename. A process killed between the two leaves a
 * cluster holding the rows and the old directory in place; the next start finds the counts equal
 * and only renames. Rows in the cluster that are not this import are never merged with it.
 */

export class PgliteImportRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PgliteImportRefusedError';
  }
}

export type PgliteImportResult =
  | { imported: false }
  | { imported: true; from: string; keptIn: string; tables: CopiedTable[]; rows: number; resumed: boolean; warnings: string[] };

/**
 * The migrations of release 0.1, the last to keep its store in PGlite: the store an import reads
 * must have exactly these applied. Later migrations of this version run on the cluster before the
 * copy, so each must keep the copy valid: add types, values, tables or columns with defaults, and
 * never change what a 0.1 column holds (one that does moves the import between the two lists).
 */
const RELEASE_0_1_MIGRATIONS = [
  '20261122013040_init',
  '20261122015906_sale_orders',
  '20261122020041_partners',
  '20261122020403_price_items',
  '20261122020612_stocks',
  '20261122020845_purchase_orders',
  '20261122021928_failures_webhooks_queue',
  '20261122025057_admin_accounts',
  '20261122045940_pending_partial_indexes',
  '20261122072854_queue_completed_at_index',
  '20261123005607_per_reader_listings_change_clocks',
  '20261123005730_idempotency_keys',
  '20261123014930_failure_idempotency_ref',
  '20261123034031_webhook_endpoint_health',
  '20261123034300_source_updated_at',
  '20261123041355_pending_values',
  '20261123043215_delivery_attempts',
  '20261124143426_pending_counts',
  '20261124143821_change_history',
  '20261124145046_status_source_direction_enums',
  '20261124221609_tracked_value_enums',
  '20261125000615_failure_entity_type_enum',
];

const PGLITE_DIR = 'pglite';
const IMPORTED_PREFIX = `${PGLITE_DIR}.imported-`;

export async function importPgliteStore(options: { dataDir: string; targetUrl: string; logger: Logger }): Promise<PgliteImportResult> {
  const { dataDir, targetUrl, logger } = options;
  const from = path.join(dataDir, PGLITE_DIR);
  if (!(await exists(path.join(from, 'PG_VERSION')))) return { imported: false };
  logger.warn({ from }, 'found the PGlite store of sync-gateway 0.1: importing it into the embedded PostgreSQL (once)');
  const started = Date.now();
  // Loaded only here: PGlite and its WebAssembly stay out of every other start.
  const { PGlite } = await import('@electric-sql/pglite');
  const source = await PGlite.create({ dataDir: from });
  const target = new Client({ connectionString: targetUrl, application_name: 'sync-gateway-import' });
  let outcome: { tables: CopiedTable[]; resumed: boolean; warnings: string[] };
  try {
    await target.connect();
    const [theirs, ours] = [await appliedMigrations(source), await buildMigrations()];
    if (theirs.join() !== RELEASE_0_1_MIGRATIONS.join() || ours.slice(0, theirs.length).join() !== theirs.join()) {
      throw new PgliteImportRefusedError(
        `${from} was written by a sync-gateway 0.1 release whose migrations differ from the ones this version imports from ` +
          `(${theirs.length} applied there, ${RELEASE_0_1_MIGRATIONS.length} expected). Start the last 0.1 release on this DATA_DIR once ` +
          '(it applies its migrations), stop it, then start this version again.',
      );
    }
    outcome = (await tablesHoldingRows(target)).length > 0 ? await resume(source, target, from, dataDir) : await copy(source, target);
  } finally {
    await target.end().catch(() => undefined);
    await source.close();
  }
  const keptIn = path.join(dataDir, `${IMPORTED_PREFIX}${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`);
  await rename(from, keptIn);
  await syncDirectory(dataDir);
  const rows = outcome.tables.reduce((sum, t) => sum + t.rows, 0);
  for (const warning of outcome.warnings) logger.warn({ warning }, 'PGlite import');
  logger.warn(
    {
      rows,
      tables: Object.fromEntries(outcome.tables.map((t) => [t.table, t.rows])),
      keptIn,
      ms: Date.now() - started,
      resumed: outcome.resumed,
    },
    `imported the PGlite store of 0.1 (${rows} rows) into the embedded PostgreSQL in ${path.join(dataDir, 'postgres')}; ` +
      `the old store is kept in ${keptIn}: remove it once this version runs as it should`,
  );
  return { imported: true, from, keptIn, tables: outcome.tables, rows, resumed: outcome.resumed, warnings: outcome.warnings };
}

/** Every table in one transaction on the cluster, from one snapshot of the PGlite store. */
async function copy(source: Sql, target: Sql) {
  return inSnapshot(source, () =>
    inTransaction(target, 'BEGIN', async () => {
      const tables = await copyTables(source, target);
      const warnings = pendingCountDifferences(await pendingCounts(source), await pendingCounts(target)).map(
        (d) => `pending count recounted from the rows differs from 0.1's counter: ${d}`,
      );
      return { tables, resumed: false, warnings };
    }),
  );
}

/** The cluster holds rows already: an import that committed and was killed before the rename, or a refusal. */
async function resume(source: Sql, target: Sql, from: string, dataDir: string) {
  const tables: CopiedTable[] = [];
  const differences: string[] = [];
  for (const { name } of await describeTables(source)) {
    const [theirs, ours] = [await countRows(source, name), await countRows(target, name)];
    tables.push({ table: name, rows: theirs });
    if (theirs !== ours) differences.push(`${name} ${theirs} there, ${ours} here`);
  }
  if (differences.length > 0) {
    throw new PgliteImportRefusedError(
      `both ${from} (a PGlite store of 0.1, not imported yet) and ${path.join(dataDir, 'postgres')} (the embedded PostgreSQL) hold data, ` +
        `and not the same rows (${differences.join('; ')}). Refusing to start rather than merge them: move one of the two directories ` +
        'out of DATA_DIR (or restore a backup into a new DATA_DIR), then start again.',
    );
  }
  return {
    tables,
    resumed: true,
    warnings: ['the cluster already held these rows (an import interrupted before its rename): nothing copied twice'],
  };
}

/** What DATA_DIR holds of 0.1: a PGlite store not imported yet, and the stores imported already (oldest first). */
export async function pgliteStores(dataDir: string): Promise<{ pending?: string; imported: string[] }> {
  const entries = await readdir(dataDir).catch(() => [] as string[]);
  const imported = entries.filter((e) => e.startsWith(IMPORTED_PREFIX)).sort();
  const pending = (await exists(path.join(dataDir, PGLITE_DIR, 'PG_VERSION'))) ? path.join(dataDir, PGLITE_DIR) : undefined;
  return { ...(pending ? { pending } : {}), imported: imported.map((e) => path.join(dataDir, e)) };
}

/** The rename reaches the disk before the start goes on (the copy itself committed with fsync on). */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );
