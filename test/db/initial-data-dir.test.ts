import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { startEmbeddedThread } from '../../src/db/embedded-thread';
import { INITIAL_DATA_DIR, initialiseDataDir, installedPgliteVersion, writeInitialDataDir } from '../../src/db/initial-data-dir';

/**
 * A first start loads the pre-initialised data directory made at build time (ADR 0041) instead of
 * running initdb, into a staging directory renamed into place once whole; one made by another
 * PGlite, or damaged, is not used and initdb runs as before.
 */
describe('the pre-initialised data directory', () => {
  let root: string;
  const logs: Array<{ level: string; message: string }> = [];
  const logger = {
    warn: (_fields: unknown, message?: string) => void logs.push({ level: 'warn', message: message ?? '' }),
    info: (_fields: unknown, message?: string) => void logs.push({ level: 'info', message: message ?? '' }),
  };

  /** A copy of the built directory, its manifest changed by `edit`. */
  const variant = async (name: string, edit: (manifest: Record<string, unknown>) => void) => {
    const dir = path.join(root, name);
    await cp(INITIAL_DATA_DIR, dir, { recursive: true });
    const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
    edit(manifest);
    await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    return dir;
  };

  beforeAll(async () => {
    // `npm run build` makes it; this only makes it when the build has not (about 10 s).
    await writeInitialDataDir();
    root = await mkdtemp(path.join(os.tmpdir(), 'sgw-initial-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));
  beforeEach(() => void logs.splice(0));

  it('is made by the installed PGlite', async () => {
    const manifest = JSON.parse(await readFile(path.join(INITIAL_DATA_DIR, 'manifest.json'), 'utf8')) as { pglite: string };
    expect(manifest.pglite).toBe(await installedPgliteVersion());
  });

  it('gives an absent data directory its cluster, through a staging directory, and Postgres starts on it', async () => {
    const pgDir = path.join(root, 'absent', 'pglite');
    await mkdir(path.dirname(pgDir));
    // What a start that died half-way through the load leaves: never renamed, so removed.
    await mkdir(`${pgDir}.initialising`);
    await writeFile(path.join(`${pgDir}.initialising`, 'PG_VERSION'), '17\n');

    expect(await initialiseDataDir(pgDir, { fsync: true, logger })).toBe(true);
    expect(await readdir(path.dirname(pgDir))).toEqual(['pglite']);
    expect(logs).toEqual([{ level: 'info', message: 'initialised the embedded store from the pre-initialised data directory' }]);

    const pglite = await PGlite.create({ dataDir: pgDir });
    try {
      const { rows } = await pglite.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_database');
      expect(rows[0]!.n).toBeGreaterThanOrEqual(3);
    } finally {
      await pglite.close();
    }
  });

  it('fills an empty data directory too, and leaves one with anything in it alone', async () => {
    const empty = path.join(root, 'empty');
    await mkdir(empty);
    expect(await initialiseDataDir(empty, { fsync: false, logger })).toBe(true);
    expect(existsSync(path.join(empty, 'PG_VERSION'))).toBe(true);

    const occupied = path.join(root, 'occupied');
    await mkdir(occupied);
    await writeFile(path.join(occupied, 'postgresql.conf'), '');
    expect(await initialiseDataDir(occupied, { fsync: false, logger })).toBe(false);
    expect(await readdir(occupied)).toEqual(['postgresql.conf']);
  });

  it('is not used when another PGlite made it, or when it is damaged: logged, and the directory left as it was', async () => {
    const other = await variant('other-version', (m) => (m.pglite = '0.3.0'));
    const pgDir = path.join(root, 'mismatch');
    expect(await initialiseDataDir(pgDir, { fsync: false, logger, source: other })).toBe(false);
    expect(existsSync(pgDir)).toBe(false);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.message).toMatch(/made by PGlite 0\.3\.0, and \d+\.\d+\.\d+ is installed: the first start runs initdb/);

    const damaged = await variant('damaged', (m) => (m.sha256 = '0'.repeat(64)));
    expect(await initialiseDataDir(pgDir, { fsync: false, logger, source: damaged })).toBe(false);
    expect(logs[1]!.message).toMatch(/missing or damaged/);

    expect(await initialiseDataDir(pgDir, { fsync: false, logger, source: path.join(root, 'nowhere') })).toBe(false);
    expect(logs[2]!.message).toMatch(/no pre-initialised data directory was built/);
    expect(existsSync(pgDir)).toBe(false);
  });

  it('falls back to initdb in the store’s thread when it cannot be used', async () => {
    const other = await variant('other-version-thread', (m) => (m.pglite = '0.3.0'));
    const pgDir = path.join(root, 'thread-fallback');
    const warnings: string[] = [];
    const threadLogger = { warn: (_fields: unknown, message: string) => void warnings.push(message), info: () => undefined };
    const thread = await startEmbeddedThread({ pgDir, initialDataDir: other, logger: threadLogger as never });
    try {
      const { rows } = await thread.query<{ n: number }>('SELECT 1 AS n');
      expect(rows[0]!.n).toBe(1);
    } finally {
      await thread.close();
    }
    expect(warnings.some((m) => /made by PGlite 0\.3\.0/.test(m))).toBe(true);
    expect(existsSync(path.join(pgDir, 'PG_VERSION'))).toBe(true);
  });
});
