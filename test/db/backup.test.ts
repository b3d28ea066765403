import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { backupEmbeddedStore, checksumFile, restoreEmbeddedStore, RestoreRefusedError } from '../../src/db/backup';
import { createSecretBox } from '../../src/webhooks/secret-box';
import { openEmbeddedTestStore, observableState, products, seedInstallation, tableCounts } from '../support/embedded-store';
import { startTestServer, type TestServer } from '../support/http';
import { runCli } from '../support/process';

describe('backup and restore of the embedded store', () => {
  let source: Awaited<ReturnType<typeof openEmbeddedTestStore>>;
  let api: TestServer;
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'sgw-backup-'));
    source = await openEmbeddedTestStore();
    api = await startTestServer(source.asTestDatabase(), { secrets: createSecretBox(Buffer.alloc(32, 7)) });
    await seedInstallation(api, source.db.prisma);
  });
  afterAll(async () => {
    await api.close();
    await source.db.close();
    await source.remove();
    await rm(work, { recursive: true, force: true });
  });

  it('backs up while serving and pushing; the restored store answers the same and keeps pending changes pending', async () => {
    const file = path.join(work, 'while-serving.tar.gz');
    // Pushes keep coming while the backup is taken: it must be consistent, whatever it catches.
    const pushes = (async () => {
      for (let round = 1; round <= 3; round++) {
        await api.request('POST', '/api/v1/products', { body: { products: products(200, round).slice(150) } });
      }
    })();
    const result = await backupEmbeddedStore(source.db, file);
    await pushes;
    expect(result).toEqual({ file, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: expect.any(Number) });

    // What the backup holds is the state at some moment during the pushes; compare against a backup of the final state.
    const settled = path.join(work, 'settled.tar.gz');
    await backupEmbeddedStore(source.db, settled);
    const expected = { counts: await tableCounts(source.db.prisma), state: await observableState(api, source.db.prisma, api.token) };
    expect(expected.state.products.meta.total).toBeGreaterThan(0);
    expect(expected.state.queue.map((q) => q.status)).toEqual(['pending']);

    const restoredDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-restored-'));
    await restoreEmbeddedStore({ dataDir: restoredDir, file: settled });
    const restored = await openEmbeddedTestStore({ dataDir: restoredDir });
    try {
      expect(await tableCounts(restored.db.prisma)).toEqual(expected.counts);
      const api2 = await startTestServer(restored.asTestDatabase(), { secrets: createSecretBox(Buffer.alloc(32, 7)) });
      try {
        expect(await observableState(api2, restored.db.prisma, api.token)).toEqual(expected.state);
        // The pending changes are still pending: acknowledging them works there, once.
        const ids = expected.state.products.payload.map((p: { id: number }) => p.id);
        const ack = await api2.request('POST', '/api/v1/updated-products/batch-delete', { body: { ids }, token: api.token });
        expect(ack.status).toBe(200);
        expect((await api2.request('GET', '/api/v1/updated-products', { token: api.token })).body.meta.total).toBe(0);
      } finally {
        await api2.close();
      }
    } finally {
      await restored.db.close();
      await restored.remove();
    }

    // The backup taken during the pushes restores too (recovered from its WAL), with every table there.
    const duringDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-restored-'));
    await restoreEmbeddedStore({ dataDir: duringDir, file });
    const during = await openEmbeddedTestStore({ dataDir: duringDir });
    expect(Object.keys(await tableCounts(during.db.prisma))).toEqual(Object.keys(expected.counts));
    await during.db.close();
    await during.remove();
  });

  it('refuses to restore over a live store, over an existing one without replace, and a damaged file', async () => {
    const file = path.join(work, 'refusals.tar.gz');
    await backupEmbeddedStore(source.db, file);

    // The source is open in this process: a restore from another process is refused by the data-directory lock.
    const cli = await runCli({ ...process.env, DATA_DIR: source.dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' }, ['restore', file]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/refusing to restore over a live store/);

    const stopped = await openEmbeddedTestStore();
    await stopped.db.close();
    await expect(restoreEmbeddedStore({ dataDir: stopped.dataDir, file })).rejects.toThrow(/already holds a store; restore with --replace/);
    const { movedAside } = await restoreEmbeddedStore({ dataDir: stopped.dataDir, file, replace: true });
    expect(movedAside).toMatch(/pglite\.replaced-\d{14}$/);
    await stopped.remove();

    const damaged = path.join(work, 'damaged.tar.gz');
    await writeFile(damaged, 'not a backup');
    await writeFile(checksumFile(damaged), `${'0'.repeat(64)}  damaged.tar.gz\n`);
    const empty = await mkdtemp(path.join(os.tmpdir(), 'sgw-restored-'));
    await expect(restoreEmbeddedStore({ dataDir: empty, file: damaged })).rejects.toThrow(RestoreRefusedError);
    await rm(checksumFile(damaged));
    await expect(restoreEmbeddedStore({ dataDir: empty, file: damaged })).rejects.toThrow(/\.sha256 is missing/);
    await rm(empty, { recursive: true, force: true });
  });
});
