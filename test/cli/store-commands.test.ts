import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPostgresDatabase } from '../support/database';
import { embeddedEnv, runCli, serveProcess } from '../support/process';

/** Each CLI run starts a process and opens the store; with other suites beside it, that takes a while. */
const TIMEOUT_MS = 240_000;
const FIXTURE = path.join(__dirname, '..', 'fixtures', 'pglite-0.1', 'pglite-store-v0.1.0.tar.gz');

describe('sync-gateway backup, restore and import-pglite (as processes)', () => {
  let work: string;
  const envFor = (dataDir: string): NodeJS.ProcessEnv => embeddedEnv(dataDir, { LOG_LEVEL: 'warn' });

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'sgw-store-cli-'));
    // As root the clusters run as another OS user, who must pass through this directory.
    await chmod(work, 0o711);
  });
  afterAll(() => rm(work, { recursive: true, force: true }));

  it(
    'backs up a stopped store and a serving one (through its cluster), restores both elsewhere, refuses a live target',
    async () => {
      const source = envFor(path.join(work, 'source'));
      expect((await runCli(source, ['token', 'create', '--name', 'erp'])).code).toBe(0);

      const file = path.join(work, 'store.jsonl.gz');
      const backup = await runCli(source, ['backup', file]);
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      expect(backup.stdout).toMatch(/backup written: .*store\.jsonl\.gz \(\d+ bytes, sha256 [0-9a-f]{64}; 1 rows in \d+ tables\)/);
      expect(await readFile(`${file}.sha256`, 'utf8')).toMatch(/^[0-9a-f]{64} {2}store\.jsonl\.gz\n$/);

      const target = envFor(path.join(work, 'target'));
      const restore = await runCli(target, ['restore', file]);
      expect(restore.stderr).toBe('');
      expect(restore.code).toBe(0);
      expect(restore.stdout).toMatch(/restored 1 rows in \d+ tables/);
      expect((await runCli(target, ['token', 'list'])).stdout).toMatch(/erp/);

      const server = await serveProcess({ ...source, LOG_LEVEL: 'info' });
      const live = path.join(work, 'live.jsonl.gz');
      try {
        expect((await runCli(source, ['token', 'create', '--name', 'webshop'])).code).toBe(0);
        const online = await runCli(source, ['backup', live]);
        expect(online.stderr).toBe('');
        expect(online.code).toBe(0);
        expect(online.stdout).toMatch(/backup written: .*live\.jsonl\.gz .*2 rows/);
        const refused = await runCli(source, ['restore', '--replace', file]);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/refusing to restore over a live store/);
      } finally {
        await server.stop();
      }

      const over = await runCli(target, ['restore', live]);
      expect(over.code).toBe(1);
      expect(over.stderr).toMatch(/already holds a store; restore with --replace/);
      const replaced = await runCli(target, ['restore', '--replace', live]);
      expect(replaced.code).toBe(0);
      expect(replaced.stdout).toMatch(/the store that was there is kept in .*postgres\.replaced-\d{14}/);
      expect((await runCli(target, ['token', 'list'])).stdout).toMatch(/webshop/);

      const onPostgres = await runCli({ ...target, DATABASE_URL: 'postgresql://u@127.0.0.1:1/x' }, ['restore', file]);
      expect(onPostgres.code).toBe(1);
      expect(onPostgres.stderr).toMatch(/unset DATABASE_URL/);
    },
    TIMEOUT_MS,
  );

  it(
    'imports a 0.1 data directory with one command, once',
    async () => {
      const dataDir = path.join(work, 'from-0.1');
      await mkdir(dataDir);
      execFileSync('tar', ['-xzf', FIXTURE, '-C', dataDir]);
      const env = envFor(dataDir);

      const imported = await runCli(env, ['import-pglite']);
      expect(imported.code).toBe(0);
      expect(imported.stdout).toMatch(
        /imported DATA_DIR\/pglite into the embedded PostgreSQL; the old store is kept in .*pglite\.imported-\d{14}/,
      );
      // The import's own warning (stderr, as every log line of the CLI) says the same.
      expect(imported.stderr).toMatch(/imported the PGlite store of 0\.1/);
      expect((await readdir(dataDir)).filter((e) => e.startsWith('pglite'))).toEqual([expect.stringMatching(/^pglite\.imported-/)]);

      const again = await runCli(env, ['import-pglite']);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/nothing to import: imported earlier/);
      expect((await runCli(env, ['token', 'list'])).stdout).toMatch(/webshop/);
    },
    TIMEOUT_MS,
  );

  (process.env.TEST_DATABASE_URL ? it : it.skip)(
    'backs up a DATABASE_URL store too, and says pg_dump remains the tool for large servers',
    async () => {
      const database = await createPostgresDatabase('postgresql', { migrated: false });
      try {
        const env = { ...envFor(path.join(work, 'unused')), DATABASE_URL: database.url, ENCRYPTION_KEY: '7'.repeat(64) };
        const file = path.join(work, 'server.jsonl.gz');
        const result = await runCli(env, ['backup', file]);
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        expect(result.stdout).toMatch(/pg_dump remains the tool of choice/);
      } finally {
        await database.drop();
      }
    },
    TIMEOUT_MS,
  );
});
