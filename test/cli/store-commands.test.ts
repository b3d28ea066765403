import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCli, serveProcess } from '../support/process';

/** Each CLI run starts a process and opens the store; with other suites beside it, that takes a while. */
const TIMEOUT_MS = 240_000;

describe('sync-gateway backup and restore (embedded store, as processes)', () => {
  let work: string;
  const envFor = (dataDir: string): NodeJS.ProcessEnv => ({
    ...process.env,
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
  });

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'sgw-store-cli-'));
  });
  afterAll(() => rm(work, { recursive: true, force: true }));

  it(
    'backs up a stopped store and a running one (through its server), restores both elsewhere',
    async () => {
      const source = envFor(path.join(work, 'source'));
      expect((await runCli(source, ['token', 'create', '--name', 'erp'])).code).toBe(0);

      const file = path.join(work, 'store.tar.gz');
      const backup = await runCli(source, ['backup', file]);
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      expect(backup.stdout).toMatch(/backup written: .*store\.tar\.gz \(\d+ bytes, sha256 [0-9a-f]{64}\)/);
      expect(await readFile(`${file}.sha256`, 'utf8')).toMatch(/^[0-9a-f]{64} {2}store\.tar\.gz\n$/);

      const target = envFor(path.join(work, 'target'));
      const restore = await runCli(target, ['restore', file]);
      expect(restore.code).toBe(0);
      expect((await runCli(target, ['token', 'list'])).stdout).toMatch(/erp/);

      // While a server holds the store, the backup is taken by that server (the control channel).
      const server = await serveProcess({ ...source, LOG_LEVEL: 'info' });
      const live = path.join(work, 'live.tar.gz');
      try {
        expect((await runCli(source, ['token', 'create', '--name', 'webshop'])).code).toBe(0);
        const online = await runCli(source, ['backup', live]);
        expect(online.stderr).toBe('');
        expect(online.code).toBe(0);
        expect(online.stdout).toMatch(/backup written: .*live\.tar\.gz/);
        // restore and export need the store stopped.
        const refused = await runCli(envFor(path.join(work, 'source')), ['export', '--to', 'postgresql://u@127.0.0.1:1/x']);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/in use/);
      } finally {
        await server.stop();
      }
      const fromLive = envFor(path.join(work, 'from-live'));
      expect((await runCli(fromLive, ['restore', live])).code).toBe(0);
      expect((await runCli(fromLive, ['token', 'list'])).stdout).toMatch(/webshop/);

      const onPostgres = await runCli({ ...source, DATABASE_URL: 'postgresql://u@127.0.0.1:1/x' }, ['backup', file]);
      expect(onPostgres.code).toBe(1);
      expect(onPostgres.stderr).toMatch(/pg_dump/);
    },
    TIMEOUT_MS,
  );
});
