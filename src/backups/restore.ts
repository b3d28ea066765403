import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { DataDirLockedError, lockDataDir } from '../db/data-dir-lock';
import { clusterDirectory } from '../db/embedded-postgres';
import { pgliteStores } from './pglite-import';
import { openStore, type Store } from '../db/store';
import {
  buildMigrations,
  describeTables,
  inTransaction,
  pendingCountDifferences,
  pendingCounts,
  BATCH_ROWS,
  setSequences,
  tableWriter,
  tablesHoldingRows,
} from './table-copy';

/**
 * Backups (docs/adr/0026, as revised for the embedded PostgreSQL): one REPEATABLE READ snapshot
 * streamed table by table into a gzipped JSON-lines file, so the service keeps serving and
 * writing while it is taken and memory stays bounded. Line 1 is the header (format, version, the
 * source's migrations, each table's row count and columns in the snapshot, sequences, pending
 * counts); then per table a line `{"table","rows"}` followed by exactly that many rows; then a
 * trailer. `<file>.sha256` (sha256sum's format) sits beside it.
 */

import { backupLines, readBackupHeader, RestoreRefusedError, type BackupHeader } from './backup';

export type RestoreOptions = {
  dataDir: string;
  file: string;
  /** Move an existing (stopped) store aside instead of refusing. */
  replace?: boolean | undefined;
  skipChecksum?: boolean | undefined;
  logger: Logger;
};
export type RestoreResult = { movedAside: string[]; tables: number; rows: number; warnings: string[] };

/**
 * Restores a backup into DATA_DIR as a fresh embedded cluster, migrated by this build, its rows
 * loaded in one transaction. Refuses a live store, a file that fails its checksum, a backup with
 * migrations this build does not have, and an existing store unless `replace` (which moves it
 * aside, never deletes it).
 */
export async function restoreStore(options: RestoreOptions): Promise<RestoreResult> {
  const { dataDir, file, logger } = options;
  const header = await readBackupHeader(file, options);
  const ours = await buildMigrations();
  const foreign = header.migrations.find((name, i) => ours[i] !== name);
  if (foreign !== undefined || header.migrations.length > ours.length) {
    throw new RestoreRefusedError(
      `the backup's migrations are not this build's: it has ${foreign ?? header.migrations[ours.length]}, which this build does not apply at that place. ` +
        'Restore it with the build that wrote it (or a newer one).',
    );
  }
  const movedAside = await clearDataDir(dataDir, options.replace ?? false, logger);
  let store: Store;
  try {
    store = await openStore({ dataDir, logger });
  } catch (error) {
    if (error instanceof DataDirLockedError) throw new RestoreRefusedError(`refusing to restore over a live store: ${error.message}`);
    throw error;
  }
  let loaded = false;
  try {
    await store.migrate();
    const result = { movedAside, ...(await loadBackup(store, file, header)) };
    loaded = true;
    return result;
  } finally {
    await store.close();
    // The cluster was made by this restore and holds nothing else: a retry starts clean.
    if (!loaded) await rm(clusterDirectory(dataDir), { recursive: true, force: true });
  }
}

/** The lock held only while looking: openStore takes it again, and a server started meanwhile makes it refuse. */
async function clearDataDir(dataDir: string, replace: boolean, logger: Logger): Promise<string[]> {
  let release: () => Promise<void>;
  try {
    release = await lockDataDir(dataDir, (error) => logger.error({ err: error }, 'lost the data directory lock during restore'));
  } catch (error) {
    if (error instanceof DataDirLockedError) throw new RestoreRefusedError(`refusing to restore over a live store: ${error.message}`);
    throw error;
  }
  try {
    // A 0.1 store not imported yet would be imported on top of the restored rows: it counts as a store too.
    const legacy = (await pgliteStores(dataDir)).pending;
    const present = [
      ...((await exists(path.join(clusterDirectory(dataDir), 'PG_VERSION'))) ? [clusterDirectory(dataDir)] : []),
      ...(legacy ? [legacy] : []),
    ];
    if (present.length > 0 && !replace) {
      throw new RestoreRefusedError(
        `${present.join(' and ')} already holds a store; restore with --replace to move it aside first (it is kept, never deleted)`,
      );
    }
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const movedAside = [];
    for (const dir of present) {
      await rename(dir, `${dir}.replaced-${stamp}`);
      movedAside.push(`${dir}.replaced-${stamp}`);
    }
    // A directory without PG_VERSION is a cluster whose initdb never finished: the start makes it again.
    return movedAside;
  } finally {
    await release();
  }
}

async function loadBackup(store: Store, file: string, header: BackupHeader): Promise<Omit<RestoreResult, 'movedAside'>> {
  const client = await store.sql.connect();
  try {
    const holding = await tablesHoldingRows(client);
    if (holding.length > 0) throw new RestoreRefusedError(`the new store is not empty (rows in ${holding.join(', ')})`);
    const shapes = new Map((await describeTables(client)).map((s) => [s.name, s]));
    const lines = backupLines(file);
    await lines.next();
    // One transaction: a restore that fails half-way leaves no half-restored store behind.
    const warnings = await inTransaction(client, 'BEGIN', async () => {
      for (const table of header.tables) {
        const marker = JSON.parse((await lines.next()).value ?? 'null') as { table?: string; rows?: number } | null;
        if (marker?.table !== table.name || marker.rows !== table.rows)
          throw new RestoreRefusedError(`${file} is damaged: expected the rows of ${table.name}`);
        const shape = shapes.get(table.name);
        if (!shape) throw new RestoreRefusedError(`the backup holds a table this build does not have: ${table.name}`);
        const writer = tableWriter(client, { ...shape, columns: table.columns });
        let batch: string[] = [];
        for (let i = 0; i < table.rows; i++) {
          const { value, done } = await lines.next();
          if (done) throw new RestoreRefusedError(`${file} ends within ${table.name}: it is truncated`);
          batch.push(value);
          if (batch.length < BATCH_ROWS) continue;
          await writer.write(batch);
          batch = [];
        }
        await writer.write(batch);
        await writer.finish();
      }
      const trailer = JSON.parse((await lines.next()).value ?? 'null') as { end?: boolean } | null;
      if (!trailer?.end) throw new RestoreRefusedError(`${file} is damaged: no end after the last table`);
      await setSequences(client, header.sequences);
      // Recounted by the triggers as the rows arrived (ADR 0030); a difference is worth a word, not a refusal.
      return pendingCountDifferences(header.pendingCounts, await pendingCounts(client)).map(
        (d) => `pending count recounted from the rows: ${d}`,
      );
    }).finally(() => lines.return(undefined));
    return { tables: header.tables.length, rows: header.tables.reduce((sum, t) => sum + t.rows, 0), warnings };
  } finally {
    client.release();
  }
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );
