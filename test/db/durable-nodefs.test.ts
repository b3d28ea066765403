import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { DurableNodeFS, durableStartParams } from '../../src/db/durable-nodefs';
import { countWalSyncs, straceAvailable } from '../../bench/durability-strace';

describe('durable embedded writes', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sgw-durable-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('syncs once per committed write, not for reads, and syncs data files at a checkpoint', async () => {
    const fs = new DurableNodeFS(dir);
    const pg = await PGlite.create({ fs, startParams: durableStartParams() });
    try {
      expect((await pg.query<{ fsync: string }>('SHOW fsync')).rows[0]!.fsync).toBe('on');
      await pg.exec('CREATE TABLE t (id serial PRIMARY KEY, v text)');
      const before = fs.counters.synced;
      for (let i = 0; i < 5; i++) await pg.query('INSERT INTO t (v) VALUES ($1)', [`row ${i}`]);
      await pg.transaction(async (tx) => {
        await tx.query("INSERT INTO t (v) VALUES ('a')");
        await tx.query("INSERT INTO t (v) VALUES ('b')");
      });
      expect(fs.counters.synced - before).toBe(6); // five single statements and one transaction

      const afterWrites = fs.counters.synced;
      await pg.query('SELECT count(*) FROM t');
      expect(fs.counters.synced).toBe(afterWrites);

      await pg.exec('CHECKPOINT');
      expect(fs.counters.synced - afterWrites).toBeGreaterThan(1); // the table's file, pg_control, WAL
    } finally {
      await pg.close();
    }
  });

  it('after an unclean stop, one sync of the whole directory lets Postgres skip the files not written since', async () => {
    // An instance left open, as a killed process leaves its store: the next start walks every file.
    const abandoned = await PGlite.create({ fs: new DurableNodeFS(dir), startParams: durableStartParams() });
    await abandoned.query("INSERT INTO t (v) VALUES ('before the crash')");

    const fs = new DurableNodeFS(dir);
    expect(await fs.syncWholeDirectory()).toBe(true);
    const pg = await PGlite.create({ fs, startParams: durableStartParams() });
    try {
      expect(fs.counters.skippedClean).toBeGreaterThan(100);
      const synced = fs.counters.synced;
      await pg.query("INSERT INTO t (v) VALUES ('after the restart')");
      expect(fs.counters.synced).toBe(synced + 1); // a write is still synced
      expect((await pg.query('SELECT count(*)::int AS n FROM t')).rows).toEqual([{ n: 9 }]);
    } finally {
      await pg.close();
    }
  });

  // strace proves the syncs reach the kernel from a real `serve` (dist/): npm run build first.
  const withStrace = straceAvailable() ? it : it.skip;
  if (!straceAvailable())
    console.warn('strace is not installed: the WAL-sync count of a real serve process is skipped (apt-get install -y strace)');

  withStrace(
    'a real serve process syncs a pg_wal file at least once per 2xx write, and not at all with EMBEDDED_FSYNC=false',
    async () => {
      const on = await countWalSyncs(8, true);
      expect(on.walSyncs).toBeGreaterThanOrEqual(8);
      const off = await countWalSyncs(8, false);
      expect(off.walWrites).toBeGreaterThanOrEqual(8);
      expect(off.walSyncs).toBe(0);
    },
    300_000,
  );
});
