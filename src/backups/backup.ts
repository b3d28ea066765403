import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { createGunzip, createGzip } from 'node:zlib';
import { type Store } from '../db/store';
import {
  appliedMigrations,
  countRows,
  describeTables,
  inSnapshot,
  pendingCounts,
  readRows,
  readSequences,
  type SequenceValue,
  type Sql,
} from './table-copy';

/**
 * Backups (docs/adr/0026, as revised for the embedded PostgreSQL): one REPEATABLE READ snapshot
 * streamed table by table into a gzipped JSON-lines file, so the service keeps serving and
 * writing while it is taken and memory stays bounded. Line 1 is the header (format, version, the
 * source's migrations, each table's row count and columns in the snapshot, sequences, pending
 * counts); then per table a line `{"table","rows"}` followed by exactly that many rows; then a
 * trailer. `<file>.sha256` (sha256sum's format) sits beside it.
 */

export const BACKUP_FORMAT = 'sync-gateway-backup';
export const BACKUP_VERSION = 1;

export type BackupHeader = {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  createdAt: string;
  backend: Store['backend'];
  server: string;
  migrations: string[];
  tables: Array<{ name: string; rows: number; columns: string[] }>;
  sequences: SequenceValue[];
  pendingCounts: Record<string, number>;
};
export type BackupResult = { file: string; sha256: string; bytes: number; tables: number; rows: number };

export class RestoreRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreRefusedError';
  }
}

export const checksumFile = (file: string) => `${file}.sha256`;

/** A consistent backup of `store` (embedded or DATABASE_URL) into `file`, replaced when present. */
export async function backupStore(store: Pick<Store, 'sql' | 'backend'>, file: string): Promise<BackupResult> {
  const target = path.resolve(file);
  const partial = `${target}.partial`;
  const hash = createHash('sha256');
  const gzip = createGzip();
  // flush: fsync before the file is closed, so that the rename below publishes only synced bytes.
  const output = createWriteStream(partial, { mode: 0o600, flush: true });
  gzip.on('data', (chunk: Buffer) => hash.update(chunk));
  // A full disk fails the backup instead of leaving the writer waiting for a drain that never comes.
  output.on('error', (error) => gzip.destroy(error));
  gzip.pipe(output);
  const write = async (text: string) => {
    // Backpressure: a slow disk holds the reading back instead of buffering the store in memory.
    if (!gzip.write(text)) await once(gzip, 'drain');
  };
  const client = await store.sql.connect();
  try {
    const header = await inSnapshot(client, async () => {
      const header = await snapshotHeader(client, store.backend);
      await write(`${JSON.stringify(header)}\n`);
      for (const table of header.tables) {
        await write(`${JSON.stringify({ table: table.name, rows: table.rows })}\n`);
        let rows = 0;
        for await (const batch of readRows(client, table.name)) {
          rows += batch.length;
          await write(`${batch.join('\n')}\n`);
        }
        if (rows !== table.rows) throw new Error(`${table.name}: read ${rows} rows of ${table.rows} in one snapshot`);
      }
      return header;
    });
    const rows = header.tables.reduce((sum, t) => sum + t.rows, 0);
    await write(`${JSON.stringify({ end: true, tables: header.tables.length, rows })}\n`);
    gzip.end();
    await once(output, 'close');
    // Written aside and renamed: a backup interrupted half-way never passes for a whole one.
    await rename(partial, target);
    const sha256 = hash.digest('hex');
    await writeDurably(checksumFile(target), `${sha256}  ${path.basename(target)}\n`);
    await writeDurably(path.dirname(target));
    return { file: target, sha256, bytes: (await stat(target)).size, tables: header.tables.length, rows };
  } catch (error) {
    gzip.destroy();
    if (!output.closed) await once(output.destroy(), 'close').catch(() => undefined);
    await rm(partial, { force: true });
    throw error;
  } finally {
    client.release();
  }
}

async function snapshotHeader(db: Sql, backend: Store['backend']): Promise<BackupHeader> {
  const [server] = (await db.query('SELECT version() AS v')).rows as Array<{ v: string }>;
  const tables = [];
  for (const shape of await describeTables(db))
    tables.push({ name: shape.name, rows: await countRows(db, shape.name), columns: shape.columns });
  return {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    createdAt: new Date().toISOString(),
    backend,
    server: server!.v.split(' on ')[0]!,
    migrations: await appliedMigrations(db),
    tables,
    sequences: await readSequences(db),
    pendingCounts: await pendingCounts(db),
  };
}

/** Checks `file` against its `.sha256` (streamed) and reads its header; refuses anything else. */
export async function readBackupHeader(file: string, options: { skipChecksum?: boolean | undefined } = {}): Promise<BackupHeader> {
  if (!options.skipChecksum) {
    const recorded = (await readFile(checksumFile(file), 'utf8').catch(() => '')).trim().split(/\s+/)[0];
    if (!recorded)
      throw new RestoreRefusedError(
        `${checksumFile(file)} is missing: the backup cannot be checked (pass --skip-checksum to restore it unchecked)`,
      );
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
    const actual = hash.digest('hex');
    if (actual !== recorded)
      throw new RestoreRefusedError(
        `${file} does not match its checksum (sha256 ${actual}, recorded ${recorded}): it is damaged or not that backup`,
      );
  }
  const lines = backupLines(file);
  let header: BackupHeader;
  try {
    header = JSON.parse((await lines.next()).value ?? '') as BackupHeader;
    if (header?.format !== BACKUP_FORMAT) throw new Error('no backup header');
  } catch (error) {
    throw new RestoreRefusedError(`${file} is not a backup written by sync-gateway backup (0.2 or later): ${(error as Error).message}`);
  } finally {
    await lines.return(undefined);
  }
  if (header.version !== BACKUP_VERSION) {
    throw new RestoreRefusedError(`${file} is a backup of format version ${header.version}; this build reads version ${BACKUP_VERSION}`);
  }
  return header;
}

/** The lines of a gzipped backup, streamed (a truncated or damaged file fails the iteration). */
export async function* backupLines(file: string): AsyncGenerator<string, void> {
  const gunzip = createGunzip();
  const input = createReadStream(file);
  input.on('error', (error) => gunzip.destroy(error));
  input.pipe(gunzip).setEncoding('utf8');
  let rest = '';
  try {
    for await (const chunk of gunzip) {
      const parts = (rest + (chunk as string)).split('\n');
      rest = parts.pop()!;
      yield* parts;
    }
    if (rest) yield rest;
  } catch (error) {
    throw new RestoreRefusedError(`${file} is damaged or truncated: ${(error as Error).message}`);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

/** Writes `data` (or nothing, for a directory) and fsyncs it. */
export async function writeDurably(file: string, data?: string): Promise<void> {
  const handle = await open(file, data === undefined ? 'r' : 'w', 0o644);
  try {
    if (data !== undefined) await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
