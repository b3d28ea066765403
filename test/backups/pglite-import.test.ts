import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pino from 'pino';
import { verifyToken } from '../../src/auth/token.service';
import { countPendingByTable } from '../../src/changes/pending-counts';
import { importPgliteStore } from '../../src/backups/pglite-import';
import { openStore, type Store } from '../../src/db/store';
import { pendingCounts } from '../../src/backups/table-copy';
import { listUpdatedProducts } from '../../src/products/product.service';
import { createSecretBox, loadEncryptionKey } from '../../src/deliveries/secret-box';

/**
 * The upgrade from 0.1: a DATA_DIR made by release 0.1.0 (test/fixtures/pglite-0.1, see its
 * README) is opened as the server opens it, and everything in it must come out the same.
 */

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'pglite-0.1');
type TableFacts = { count: number; orderBy: string; columns: string[]; sha256?: string; sha256Jsonb?: string };
const expected = JSON.parse(readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8')) as {
  tableCounts: Record<string, number>;
  tables: Record<string, TableFacts>;
  sequences: Array<{ name: string; table: string; last_value: string }>;
  pendingCountDeltaSums: Array<{ table_name: string; scope: string; pending: string }>;
  tokens: Record<string, string>;
  webhookSecrets: Record<string, string>;
  apiFacts: {
    readerKeyOfToken: Record<string, string>;
    pendingCounts: Record<string, number>;
    pendingProducts: Array<{
      id: number;
      externalId: string;
      revision: number;
      ackedRevision: number;
      isNew: boolean;
      changedFields: string[];
      listedRevisions: object;
    }>;
  };
};
/** Derived or rewritten by this build rather than copied (the migrations' bookkeeping, the pending counters). */
const NOT_COPIED = new Set(['_prisma_migrations', 'pending_count_deltas']);

function capturingLogger() {
  const lines: Array<{ level: number; msg: string; [key: string]: unknown }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines, imports: () => lines.filter((l) => l.msg.startsWith('imported the PGlite store')) };
}

async function extractFixture(): Promise<string> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-import-'));
  execFileSync('tar', ['-xzf', path.join(FIXTURE, 'pglite-store-v0.1.0.tar.gz'), '-C', dataDir]);
  return dataDir;
}

/** As the server starts: open, then migrate (which imports). */
async function start(dataDir: string, logger: pino.Logger): Promise<Store> {
  const store = await openStore({ dataDir, logger, embeddedFsync: false, importLegacyStore: importPgliteStore });
  try {
    await store.migrate();
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The fixture's digest rules (its README): row_to_json text in primary-key order, in a UTC session. */
/** Digests of 0.1's columns of `table` (later releases add columns; the rows must hold 0.1's values). */
async function digests(store: Store, table: string, orderBy: string, columns: string[]) {
  const selected = columns.map((c) => `t."${c.split(' ')[0]}"`).join(', ');
  const client = await store.sql.connect();
  try {
    await client.query("SET TimeZone = 'UTC'; SET DateStyle = 'ISO'; SET extra_float_digits = 1");
    const sha = (column: string) => async () => {
      const { rows } = await client.query<{ r: string }>(
        `SELECT ${column} AS r FROM (SELECT ${selected} FROM public."${table}" t ORDER BY ${orderBy}) t`,
      );
      return createHash('sha256')
        .update(rows.map((row) => `${row.r}\n`).join(''))
        .digest('hex');
    };
    return { sha256: await sha('row_to_json(t)::text')(), sha256Jsonb: await sha('row_to_json(t)::jsonb::text')() };
  } finally {
    await client.query('RESET ALL');
    client.release();
  }
}

async function counts(store: Store): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  for (const table of Object.keys(expected.tableCounts).filter((t) => !NOT_COPIED.has(t))) {
    const { rows } = await store.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM public."${table}"`);
    result[table] = rows[0]!.n;
  }
  return result;
}
const expectedCounts = Object.fromEntries(Object.entries(expected.tableCounts).filter(([t]) => !NOT_COPIED.has(t)));
const importedDirs = async (dataDir: string) => (await readdir(dataDir)).filter((e) => e.startsWith('pglite'));

describe('import of a PGlite store made by release 0.1.0', () => {
  const dirs: string[] = [];
  let dataDir: string;
  let store: Store;
  let log: ReturnType<typeof capturingLogger>;

  beforeAll(async () => {
    dataDir = await extractFixture();
    dirs.push(dataDir);
    log = capturingLogger();
    store = await start(dataDir, log.logger);
  });
  afterAll(async () => {
    await store?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('keeps the old store beside the new one and says so in a warning', async () => {
    const kept = await importedDirs(dataDir);
    expect(kept).toEqual([expect.stringMatching(/^pglite\.imported-\d{14}$/)]);
    expect(await readdir(path.join(dataDir, kept[0]!))).toContain('PG_VERSION');
    const [line] = log.imports();
    expect(line).toMatchObject({ level: 40, rows: Object.values(expectedCounts).reduce((a, b) => a + b, 0), resumed: false });
    expect(line!.msg).toContain(path.join(dataDir, kept[0]!));
  });

  it('holds every row of every table unchanged (counts and digests of expected.json)', async () => {
    expect(await counts(store)).toEqual(expectedCounts);
    for (const [table, facts] of Object.entries(expected.tables)) {
      if (NOT_COPIED.has(table)) continue;
      expect({ table, ...(await digests(store, table, facts.orderBy, facts.columns)) }).toEqual({
        table,
        sha256: facts.sha256,
        sha256Jsonb: facts.sha256Jsonb,
      });
    }
  });

  it('goes on numbering where 0.1 stopped, and counts the same pending records', async () => {
    const { rows } = await store.sql.query<{ name: string; last_value: string }>(
      `SELECT 'public.' || sequencename AS name, last_value::text FROM pg_sequences WHERE schemaname = 'public'`,
    );
    const sequences = Object.fromEntries(rows.map((r) => [r.name, r.last_value]));
    for (const s of expected.sequences.filter((s) => !NOT_COPIED.has(s.table)))
      expect([s.name, sequences[s.name]]).toEqual([s.name, s.last_value]);

    const sums = Object.fromEntries(expected.pendingCountDeltaSums.map((s) => [`${s.table_name}/${s.scope}`, Number(s.pending)]));
    expect(await pendingCounts(store.sql)).toEqual(sums);
    expect(await countPendingByTable(store.prisma)).toEqual(expected.apiFacts.pendingCounts);
  });

  it('keeps per-reader listing marks, and the webshop sees the same change list in the same order', async () => {
    const marks = await store.prisma.product.findMany({ select: { id: true, ackedRevision: true, listedRevisions: true } });
    const byId = new Map(marks.map((m) => [m.id, m]));
    for (const p of expected.apiFacts.pendingProducts) {
      expect(byId.get(p.id)).toEqual({ id: p.id, ackedRevision: p.ackedRevision, listedRevisions: p.listedRevisions });
    }

    const reader = { key: expected.apiFacts.readerKeyOfToken.webshop!, channelId: null };
    const page = await listUpdatedProducts(store, reader, { limit: 500 });
    expect(page.meta.total).toBe(expected.apiFacts.pendingCounts.products);
    const seen = page.payload.map((p) => ({
      id: p.id,
      externalId: p.externalId,
      revision: p.revision,
      isNew: p.isNew,
      changedFields: [...(p.changedFields ?? [])].sort(),
    }));
    expect(seen).toEqual(
      expected.apiFacts.pendingProducts.map(({ listedRevisions: _marks, ackedRevision: _acked, ...p }) => ({
        ...p,
        changedFields: [...p.changedFields].sort(),
      })),
    );
  });

  it('accepts the tokens of 0.1 (not the revoked one) and decrypts webhook secrets with its encryption.key', async () => {
    const options = { lastUsedResolutionMs: 0 };
    expect((await verifyToken(store.prisma, expected.tokens.erp!, options))?.key).toBe(expected.apiFacts.readerKeyOfToken.erp);
    expect((await verifyToken(store.prisma, expected.tokens.webshop!, options))?.key).toBe(expected.apiFacts.readerKeyOfToken.webshop);
    expect(await verifyToken(store.prisma, expected.tokens['legacy-pos (revoked)']!, options)).toBeNull();

    const box = createSecretBox(await loadEncryptionKey({ dataDir }));
    const webhooks = await store.prisma.webhookConfig.findMany({ orderBy: { id: 'asc' } });
    expect(webhooks.map((w) => box.decrypt(w.secretEncrypted))).toEqual([
      expected.webhookSecrets['config 1 (product, to_erp)'],
      // A generated secret, kept as a keyring (src/deliveries/signing-keys.ts).
      expect.stringMatching(/"secret":"whsec_[A-Za-z0-9+/]+=*"/),
      expected.webhookSecrets['config 3 (sale_order, to_webshop, inactive)'],
    ]);
  });

  it('keeps queued deliveries with their attempts, failures and history', async () => {
    const queue = await store.prisma.outboundQueueItem.findMany({ orderBy: { id: 'asc' }, include: { attemptLog: true } });
    expect(queue.map((q) => [q.status, q.attempts, q.attemptLog.length])).toEqual(queue.map(() => ['pending', 1, 1]));
    expect(await store.prisma.syncFailure.count({ where: { status: 'open' } })).toBe(2);
    expect(await store.prisma.changeHistoryEntry.count()).toBe(expected.tableCounts.change_history);
  });

  it('imports nothing on the next start', async () => {
    await store.close();
    const again = capturingLogger();
    store = await start(dataDir, again.logger);
    expect(again.imports()).toEqual([]);
    expect(await importedDirs(dataDir)).toHaveLength(1);
    expect((await counts(store)).products).toBe(expected.tableCounts.products);
  });
});

describe('an import interrupted between its commit and its rename', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('renames without copying twice when the rows are there, and refuses to start when they differ', async () => {
    const dataDir = await extractFixture();
    dirs.push(dataDir);
    await (await start(dataDir, pino({ level: 'silent' }))).close();
    // As if the process had been killed right after the commit: the old directory is still in place.
    const putBack = async () => rename(path.join(dataDir, (await importedDirs(dataDir))[0]!), path.join(dataDir, 'pglite'));
    await putBack();

    const log = capturingLogger();
    let store = await start(dataDir, log.logger);
    try {
      expect(log.imports()).toEqual([expect.objectContaining({ resumed: true })]);
      expect(await counts(store)).toEqual(expectedCounts);
      expect(await importedDirs(dataDir)).toEqual([expect.stringMatching(/^pglite\.imported-/)]);
    } finally {
      await store.close();
    }

    // The cluster's rows are no longer the PGlite store's: neither is merged into the other.
    await putBack();
    store = await openStore({ dataDir, logger: pino({ level: 'silent' }), embeddedFsync: false, importLegacyStore: importPgliteStore });
    try {
      await store.sql.query('DELETE FROM password_resets');
      const refused = store.migrate();
      await expect(refused).rejects.toThrow(/hold data, and not the same rows \(password_resets 1 there, 0 here\)/);
      await expect(refused).rejects.toThrow(path.join(dataDir, 'pglite'));
      expect(await importedDirs(dataDir)).toEqual(['pglite']);

      // A store of another 0.1 release (other migrations) is refused before anything is read.
      const older = await extractFixture();
      dirs.push(older);
      const pglite = await PGlite.create({ dataDir: path.join(older, 'pglite') });
      await pglite.query(`DELETE FROM _prisma_migrations WHERE migration_name = (SELECT max(migration_name) FROM _prisma_migrations)`);
      await pglite.close();
      await expect(importPgliteStore({ dataDir: older, targetUrl: store.url, logger: pino({ level: 'silent' }) })).rejects.toThrow(
        /Start the last 0\.1 release on this DATA_DIR once/,
      );
    } finally {
      await store.close();
    }
  });
});
