import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import pino from 'pino';
import { createToken } from '../../src/auth/token.service';
import { backupStore, checksumFile, readBackupHeader, RestoreRefusedError } from '../../src/backups/backup';
import { restoreStore } from '../../src/backups/restore';
import { openStore, type Store } from '../../src/db/store';
import { pendingCounts } from '../../src/backups/table-copy';
import { syncPartners } from '../../src/partners/partner.service';
import { syncProducts } from '../../src/products/product.service';
import { setWebhookNetworks } from '../../src/deliveries/network-policy';
import { createSecretBox } from '../../src/deliveries/secret-box';
import { createIdleWebhook } from '../support/database';

const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const products = (count: number, round: number) =>
  Array.from({ length: count }, (_, i) => ({
    external_id: `P${i}`,
    name: `Product ${i}`,
    price: 10 + (i % 7),
    description: `round ${round}`,
  }));

async function start(dataDir: string): Promise<Store> {
  const store = await openStore({ dataDir, logger, embeddedFsync: false });
  await store.migrate();
  return store;
}

async function counts(store: Store): Promise<Record<string, number>> {
  const { rows } = await store.sql.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('_prisma_migrations', 'pending_count_deltas') ORDER BY 1`,
  );
  const result: Record<string, number> = {};
  for (const { name } of rows) result[name] = (await store.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}"`)).rows[0]!.n;
  return result;
}

/** Each accepted push that changes a product writes one history entry in its transaction (ADR 0031): true in every snapshot. */
async function historyMatchesRevisions(store: Store): Promise<boolean> {
  const { rows } = await store.sql.query<{ ok: boolean }>(
    `SELECT (SELECT count(*) FROM change_history WHERE entity_type = 'product') = (SELECT sum(revision) FROM products) AS ok`,
  );
  return rows[0]!.ok;
}

describe('backup and restore (one snapshot, streamed)', () => {
  let work: string;
  let source: Store;
  let sourceDir: string;
  const box = createSecretBox(Buffer.alloc(32, 7));

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'sgw-backup-'));
    // As root the clusters run as another OS user, who must pass through this directory.
    await chmod(work, 0o711);
    sourceDir = path.join(work, 'source');
    source = await start(sourceDir);
    await syncProducts(source, products(300, 0), 'erp_sync');
    // A child ahead of its parent in the order a scan reads them, in different batches:
    // restore sets self-references only once the whole table is in. (Room left on each page keeps
    // the child's update where the child was inserted, first.)
    await source.sql.query('ALTER TABLE partners SET (fillfactor = 10)');
    await syncPartners(source, [{ external_id: 'CHILD', name: 'child', type: 'B' }], 'erp_sync');
    const filler = Array.from({ length: 1_200 }, (_, i) => ({ external_id: `F${i}`, name: `filler ${i}`, type: 'C' }));
    await syncPartners(source, filler, 'erp_sync');
    await syncPartners(source, [{ external_id: 'PARENT', name: 'parent', type: 'B' }], 'erp_sync');
    await syncPartners(source, [{ external_id: 'CHILD', name: 'child', type: 'B', parent_external_id: 'PARENT' }], 'erp_sync');
    await createToken(source.prisma, 'webshop');
    setWebhookNetworks({ allowed: ['127.0.0.1/32'], blocked: [] });
    await createIdleWebhook(source.prisma, box);
  });
  afterAll(async () => {
    await source?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('is consistent while pushes commit: the restored store holds the snapshot the header describes', async () => {
    expect(await historyMatchesRevisions(source)).toBe(true);
    // The seed did put the child in an earlier batch (1,000 rows) than its parent.
    const scan = (await source.sql.query<{ id: string }>('SELECT external_id AS id FROM partners')).rows.map((r) => r.id);
    expect([scan.indexOf('CHILD') < 1_000, scan.indexOf('PARENT') >= 1_000]).toEqual([true, true]);
    const answered = await syncProducts(source, [{ external_id: 'BEFORE-BACKUP', name: 'pushed before the backup', price: 1 }], 'erp_sync');
    expect(answered).toMatchObject({ success: true, created: 1 });

    const file = path.join(work, 'while-pushing.jsonl.gz');
    let pushing = true;
    const pushes = (async () => {
      for (let round = 1; pushing || round <= 3; round++) await syncProducts(source, products(300, round), 'erp_sync');
    })();
    const result = await backupStore(source, file);
    pushing = false;
    await pushes;

    expect(result).toMatchObject({ file, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: expect.any(Number) });
    expect(await readFile(checksumFile(file), 'utf8')).toBe(`${result.sha256}  while-pushing.jsonl.gz\n`);
    expect(execFileSync('sha256sum', ['-c', checksumFile(file)], { cwd: work }).toString()).toMatch(/OK/);
    const header = await readBackupHeader(file);
    expect(header).toMatchObject({
      format: 'sync-gateway-backup',
      version: 1,
      backend: 'embedded',
      server: expect.stringMatching(/^PostgreSQL \d+/),
    });
    // Taken while pushes went on: some committed after its snapshot.
    const history = (await counts(source)).change_history!;
    expect(header.tables.find((t) => t.name === 'change_history')!.rows).toBeLessThan(history);
    expect(await readdir(work)).not.toContain('while-pushing.jsonl.gz.partial');

    const restoredDir = path.join(work, 'restored');
    const restored = await restoreStore({ dataDir: restoredDir, file, logger });
    expect(restored).toEqual({ movedAside: [], tables: header.tables.length, rows: result.rows, warnings: [] });
    const store = await start(restoredDir);
    try {
      expect(await counts(store)).toEqual(Object.fromEntries(header.tables.map((t) => [t.name, t.rows])));
      expect(await historyMatchesRevisions(store)).toBe(true);
      expect(await pendingCounts(store.sql)).toEqual(header.pendingCounts);
      expect(await store.prisma.product.findUnique({ where: { externalId: 'BEFORE-BACKUP' } })).not.toBeNull();
      const partners = await store.prisma.partner.findMany({
        where: { externalId: { in: ['PARENT', 'CHILD'] } },
        orderBy: { externalId: 'asc' },
      });
      expect(partners.map((p) => [p.externalId, p.parentId])).toEqual([
        ['CHILD', partners[1]!.id],
        ['PARENT', null],
      ]);
      const [webhook] = await store.prisma.webhookConfig.findMany();
      expect(box.decrypt(webhook!.secretEncrypted)).toContain('a-secret-of-16-chars');
      // Sequences go on after the restored ids.
      const maxId = (await store.prisma.product.aggregate({ _max: { id: true } }))._max.id!;
      await syncProducts(store, [{ external_id: 'AFTER-RESTORE', name: 'new', price: 1 }], 'erp_sync');
      expect((await store.prisma.product.findUniqueOrThrow({ where: { externalId: 'AFTER-RESTORE' } })).id).toBeGreaterThan(maxId);
    } finally {
      await store.close();
    }
  });

  it('refuses a live store, an existing one unless --replace, a bad or missing checksum, foreign migrations and a truncated file', async () => {
    const file = path.join(work, 'refusals.jsonl.gz');
    await backupStore(source, file);

    // This process holds the source's data directory.
    await expect(restoreStore({ dataDir: sourceDir, file, logger })).rejects.toThrow(/refusing to restore over a live store/);

    const existing = path.join(work, 'existing');
    await (await start(existing)).close();
    await expect(restoreStore({ dataDir: existing, file, logger })).rejects.toThrow(/already holds a store; restore with --replace/);
    const replaced = await restoreStore({ dataDir: existing, file, logger, replace: true });
    expect(replaced.movedAside).toEqual([expect.stringMatching(/postgres\.replaced-\d{14}$/)]);
    expect(await readdir(replaced.movedAside[0]!)).toContain('PG_VERSION');

    const empty = path.join(work, 'empty');
    const damaged = path.join(work, 'damaged.jsonl.gz');
    await writeFile(damaged, 'not a backup');
    await writeFile(checksumFile(damaged), `${'0'.repeat(64)}  damaged.jsonl.gz\n`);
    await expect(restoreStore({ dataDir: empty, file: damaged, logger })).rejects.toThrow(/does not match its checksum/);
    await rm(checksumFile(damaged));
    await expect(restoreStore({ dataDir: empty, file: damaged, logger })).rejects.toThrow(/\.sha256 is missing/);
    await expect(restoreStore({ dataDir: empty, file: damaged, logger, skipChecksum: true })).rejects.toThrow(
      /is not a backup written by sync-gateway/,
    );

    const lines = gunzipSync(await readFile(file))
      .toString('utf8')
      .split('\n');
    const header = JSON.parse(lines[0]!);
    const foreign = path.join(work, 'foreign.jsonl.gz');
    await writeFile(
      foreign,
      gzipSync(
        [JSON.stringify({ ...header, migrations: [...header.migrations, '29991231000000_from_the_future'] }), ...lines.slice(1)].join('\n'),
      ),
    );
    await expect(restoreStore({ dataDir: empty, file: foreign, logger, skipChecksum: true })).rejects.toThrow(
      /migrations are not this build's: it has 29991231000000_from_the_future/,
    );

    // Cut inside the products: nothing is committed and the half-made cluster is gone, so a retry starts clean.
    const truncated = path.join(work, 'truncated.jsonl.gz');
    await writeFile(truncated, gzipSync(lines.slice(0, Math.floor(lines.length / 2)).join('\n')));
    await expect(restoreStore({ dataDir: empty, file: truncated, logger, skipChecksum: true })).rejects.toThrow(RestoreRefusedError);
    expect(await readdir(empty)).not.toContain('postgres');
    const cut = path.join(work, 'cut.jsonl.gz');
    const whole = await readFile(file);
    await writeFile(cut, whole.subarray(0, Math.floor(whole.length * 0.8)));
    await expect(restoreStore({ dataDir: empty, file: cut, logger, skipChecksum: true })).rejects.toThrow(/is damaged or truncated/);
    expect(await readdir(empty)).not.toContain('postgres');
    expect((await restoreStore({ dataDir: empty, file, logger })).rows).toBeGreaterThan(0);
  });

  it('writes a header, then per table a marker and exactly its rows, then a trailer', async () => {
    const file = path.join(work, 'lines.jsonl.gz');
    await backupStore(source, file);
    let lines = 0;
    for await (const chunk of createReadStream(file).pipe((await import('node:zlib')).createGunzip()))
      lines += String(chunk).split('\n').length - 1;
    const header = await readBackupHeader(file);
    // Header, a marker and its rows per table, the trailer.
    expect(lines).toBe(1 + header.tables.length + header.tables.reduce((sum, t) => sum + t.rows, 0) + 1);
  });
});
