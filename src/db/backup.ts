import { createHash } from 'node:crypto';
import { open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import type { Database } from './database';
import { DataDirLockedError, lockDataDir } from './data-dir-lock';
import { DurableNodeFS, durableStartParams } from './durable-nodefs';
import { embeddedSettingParams } from './embedded-settings';

/**
 * Backups of the embedded store (docs/adr/0026-backup-restore-and-export.md).
 *
 * A backup is PGlite's own serialisation of the data directory (`dumpDataDir`, a gzipped tar that
 * `loadDataDir` reads back), taken inside PGlite's exclusive section: no statement runs while the
 * files are read, so the copy is what a power cut at that instant would leave on disk, which
 * Postgres recovers by replaying its WAL (all committed transactions, none of the open ones).
 * A CHECKPOINT just before keeps that replay short. Beside the file, `<file>.sha256` in the format
 * of `sha256sum`; restore refuses a file that does not match it.
 */

export type BackupResult = { file: string; sha256: string; bytes: number };

export class RestoreRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefusedError';
  }
}

export const checksumFile = (file: string) => `${file}.sha256`;

/** A consistent backup of the running embedded store into `file` (replaced when present). */
export async function backupEmbeddedStore(db: Database, file: string): Promise<BackupResult> {
  if (!db.embedded) {
    throw new Error('sync-gateway backup covers the embedded store; on PostgreSQL use pg_dump (see docs/operations.md, "Backups")');
  }
  const { pglite, housekeeping } = db.embedded;
  await housekeeping.checkpoint();
  // Taken in the store's thread inside PGlite's exclusive section (no statement runs meanwhile).
  const bytes = await pglite.dumpDataDir();
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const target = path.resolve(file);
  // Written aside and renamed: a backup interrupted half-way never passes for a whole one.
  await writeDurably(`${target}.partial`, bytes);
  await rename(`${target}.partial`, target);
  await writeDurably(checksumFile(target), `${sha256}  ${path.basename(target)}\n`);
  return { file: target, sha256, bytes: bytes.length };
}

/** Reads a backup and checks it against its `.sha256`; returns its bytes. */
export async function readVerifiedBackup(file: string, options: { skipChecksum?: boolean } = {}): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = new Uint8Array(await readFile(file));
  if (options.skipChecksum) return bytes;
  const recorded = await readFile(checksumFile(file), 'utf8').then(
    (text) => text.trim().split(/\s+/)[0],
    () => undefined,
  );
  if (!recorded) {
    throw new RestoreRefusedError(
      `${checksumFile(file)} is missing: the backup cannot be checked (pass --skip-checksum to restore it unchecked)`,
    );
  }
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== recorded) {
    throw new RestoreRefusedError(
      `${file} does not match its checksum (sha256 ${actual}, recorded ${recorded}): it is damaged or not that backup`,
    );
  }
  return bytes;
}

export type RestoreOptions = {
  dataDir: string;
  file: string;
  /** Move an existing (stopped) store aside instead of refusing. */
  replace?: boolean;
  skipChecksum?: boolean;
  logger?: Logger;
};

/**
 * Restores a backup into DATA_DIR. Refuses while any process holds the data directory (a running
 * server), and refuses a directory that already holds a store unless `replace`, which moves it to
 * `pglite.replaced-<time>` (never deletes it). Returns where an existing store was moved, if any.
 */
export async function restoreEmbeddedStore(options: RestoreOptions): Promise<{ movedAside?: string }> {
  const bytes = await readVerifiedBackup(options.file, options);
  let release: () => Promise<void>;
  try {
    release = await lockDataDir(options.dataDir, (error) =>
      options.logger?.error({ err: error }, 'lost the data directory lock during restore'),
    );
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      throw new RestoreRefusedError(`refusing to restore over a live store: ${error.message}`);
    }
    throw error;
  }
  try {
    const pgDir = path.join(options.dataDir, 'pglite');
    const movedAside = await clearTarget(pgDir, options.replace ?? false);
    const fs = new DurableNodeFS(pgDir);
    const pglite = await PGlite.create({
      fs,
      loadDataDir: new Blob([bytes], { type: 'application/x-gzip' }),
      startParams: [...durableStartParams(), ...embeddedSettingParams()],
    });
    try {
      // Replays the backup's WAL tail now and writes everything out, synced (DurableNodeFS).
      await pglite.exec('CHECKPOINT');
    } finally {
      await pglite.close();
    }
    await fs.syncWholeDirectory(options.logger);
    return movedAside ? { movedAside } : {};
  } finally {
    await release();
  }
}

async function clearTarget(pgDir: string, replace: boolean): Promise<string | undefined> {
  const entries = await readdir(pgDir).catch(() => undefined);
  if (entries === undefined || entries.length === 0) {
    await rm(pgDir, { recursive: true, force: true });
    return undefined;
  }
  const holdsStore = await stat(path.join(pgDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  if (!replace) {
    throw new RestoreRefusedError(
      holdsStore
        ? `${pgDir} already holds a store; restore with --replace to move it aside first (it is kept, never deleted)`
        : `${pgDir} is not empty and is not a store; move it away first`,
    );
  }
  const aside = `${pgDir}.replaced-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}`;
  await rename(pgDir, aside);
  return aside;
}

async function writeDurably(file: string, data: Uint8Array | string): Promise<void> {
  const handle = await open(file, 'w', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
