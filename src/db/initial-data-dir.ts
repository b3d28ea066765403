import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import { syncFileSystemOf } from './durable-nodefs';
import { embeddedSettingParams } from './embedded-settings';

/*
 * A pre-initialised data directory for the embedded store (docs/adr/0041). PGlite runs initdb on
 * an empty directory through a second instance and the initdb module beside the first, which takes
 * the process to 700–760 MB for a few seconds: a 512 MB container died on its first start. The
 * build (`npm run build`) runs that initdb once and keeps its result as a tarball in dist/, which
 * the release package and the image ship; a first start loads it (PGlite's `loadDataDir`) instead.
 * The tarball is only used by the PGlite version that made it; otherwise initdb runs, as before.
 */

/** The tarball and its manifest, beside the compiled code (src/db and dist/db are both two levels down). */
export const INITIAL_DATA_DIR = path.join(__dirname, '..', '..', 'dist', 'pglite-initial');
const TARBALL = 'data.tar.gz';
const MANIFEST = 'manifest.json';

export type InitialDataDirManifest = {
  /** The version of @electric-sql/pglite whose initdb made the tarball. */
  pglite: string;
  /** The Postgres major version in the directory's PG_VERSION. */
  postgres: string;
  sha256: string;
  bytes: number;
};

export type InitialiseLogger = Pick<Logger, 'warn' | 'info'>;

/** The installed @electric-sql/pglite's version (its package.json is not exported: found beside its entry). */
export async function installedPgliteVersion(): Promise<string> {
  let dir = path.dirname(require.resolve('@electric-sql/pglite'));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const manifest = JSON.parse(await readFile(file, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === '@electric-sql/pglite' && manifest.version) return manifest.version;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the package.json of @electric-sql/pglite');
    dir = parent;
  }
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function readManifest(dir: string): Promise<InitialDataDirManifest | undefined> {
  try {
    return JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8')) as InitialDataDirManifest;
  } catch {
    return undefined;
  }
}

/**
 * Build time: writes the tarball of a freshly initialised data directory and its manifest into
 * `dir`, unless one made by the installed PGlite is there already. Answers whether it wrote one.
 */
export async function writeInitialDataDir(dir: string = INITIAL_DATA_DIR): Promise<boolean> {
  const version = await installedPgliteVersion();
  const existing = await readManifest(dir);
  if (existing?.pglite === version) {
    const bytes = await readFile(path.join(dir, TARBALL)).catch(() => undefined);
    if (bytes && sha256(bytes) === existing.sha256) return false;
  }
  const scratch = await mkdtemp(path.join(tmpdir(), 'sgw-initdb-'));
  try {
    // PGlite's own initdb on a directory, then a clean shutdown: the cluster a first start would make.
    await (await PGlite.create({ dataDir: scratch })).close();
    // The tarball of the stopped cluster: an instance that never starts Postgres (noInitDb) only reads it.
    const reader = await PGlite.create({ dataDir: scratch, noInitDb: true });
    const bytes = new Uint8Array(await (await reader.dumpDataDir('gzip')).arrayBuffer());
    const manifest: InitialDataDirManifest = {
      pglite: version,
      postgres: (await readFile(path.join(scratch, 'PG_VERSION'), 'utf8')).trim(),
      sha256: sha256(bytes),
      bytes: bytes.length,
    };
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, TARBALL), bytes);
    await writeFile(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    return true;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * The shipped tarball, when it was made by the installed PGlite and is whole; otherwise undefined,
 * with the reason logged (the first start then runs initdb).
 */
export async function readInitialDataDir(dir: string, logger: InitialiseLogger): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const fallback = (reason: string) => {
    logger.warn({ initialDataDir: dir }, `${reason}: the first start runs initdb (about 750 MB of memory for a few seconds)`);
    return undefined;
  };
  const manifest = await readManifest(dir);
  if (!manifest) return fallback('no pre-initialised data directory was built');
  const installed = await installedPgliteVersion();
  if (manifest.pglite !== installed) {
    return fallback(`the pre-initialised data directory was made by PGlite ${manifest.pglite}, and ${installed} is installed`);
  }
  const bytes = await readFile(path.join(dir, TARBALL)).then(
    (b) => new Uint8Array(b),
    () => undefined,
  );
  if (!bytes || sha256(bytes) !== manifest.sha256) return fallback('the pre-initialised data directory is missing or damaged');
  return bytes;
}

/**
 * Gives an empty (or absent) `pgDir` its first cluster from the shipped tarball. The tarball is
 * loaded into a sibling directory by a PGlite instance of its own, which starts Postgres once on
 * it and shuts it down cleanly; the result is synced and only then renamed into place, so a crash
 * half-way leaves no half-written store behind (PG_VERSION comes first in the tarball: loaded in
 * place, a crash would leave a directory that looks like a store). Answers whether it did so;
 * false leaves `pgDir` as it was, and PGlite's initdb makes the cluster on the next open.
 * The caller holds the data-directory lock.
 */
export async function initialiseDataDir(
  pgDir: string,
  options: { fsync: boolean; logger: InitialiseLogger; source?: string | undefined },
): Promise<boolean> {
  const entries = await readdir(pgDir).catch(() => undefined);
  if (entries !== undefined && entries.length > 0) return false;
  const bytes = await readInitialDataDir(options.source ?? INITIAL_DATA_DIR, options.logger);
  if (!bytes) return false;
  const staging = `${pgDir}.initialising`;
  const started = performance.now();
  try {
    // Left by a start that died here: never renamed, so never a store.
    await rm(staging, { recursive: true, force: true });
    const pglite = await PGlite.create({
      dataDir: staging,
      loadDataDir: new Blob([bytes], { type: 'application/x-gzip' }),
      startParams: [...PGlite.defaultStartParams, ...embeddedSettingParams()],
    });
    await pglite.close();
    // Postgres ran without fsync here (PGlite's default): one sync of it all, before it counts as a store.
    if (options.fsync) await syncFileSystemOf(staging);
    // rename(2) replaces an empty directory; a mount point refuses (EBUSY, EXDEV): initdb then.
    await rename(staging, pgDir);
    if (options.fsync) await syncDirectory(path.dirname(pgDir));
  } catch (error) {
    options.logger.warn({ err: error }, 'could not load the pre-initialised data directory: the first start runs initdb');
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    return false;
  }
  options.logger.info(
    { ms: Math.round(performance.now() - started) },
    'initialised the embedded store from the pre-initialised data directory',
  );
  return true;
}

/** The directory's entries (a rename into it) on stable storage. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
