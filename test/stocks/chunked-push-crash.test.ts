import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { openDatabase } from '../../src/db/database';
import { runCli, serveProcess, ROOT, type ServeProcess } from '../support/process';

/**
 * ADR 0040: the built server (`bin/sync-gateway.js`, dist/) is killed with SIGKILL between the
 * chunks of a 10,000-stock push, restarted, and the ERP retries the same push, with and without
 * Idempotency-Key. A webshop polls and acknowledges between the crash and the retry. Each chunk
 * is atomic; in the end the stored state and the change ledger are exact, and every change was
 * listed and acknowledged exactly once.
 */
const ENTRIES = 10_000;
const CHUNK = 100;
const SUPPLIER = 'S-CRASH';

type Change = { id: number; revision: number; productExternalId: string; quantity: number };

const describeBuilt = existsSync(path.join(ROOT, 'dist', 'cli', 'main.js')) ? describe : describe.skip;

describeBuilt('kill -9 between the chunks of a stock push on the embedded store (built server)', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let token: string;
  let server: ServeProcess | undefined;
  /** Every change the webshop was handed, across the crash and the retries. */
  const seen: Change[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-chunk-crash-'));
    env = {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      WORKER_ENABLED: 'false',
      EMBEDDED_PUSH_CHUNK_RECORDS: String(CHUNK),
      RATE_LIMIT_READ_PER_MINUTE: '1000000000',
      RATE_LIMIT_WRITE_PER_MINUTE: '1000000000',
    };
    const created = await runCli(env, ['token', 'create', '--name', 'erp']);
    expect(created.code).toBe(0);
    token = created.stdout.trim().split('\n').pop()!;
  }, 120_000);

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server!.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
  };
  const pendingTotal = async () => (await call('GET', '/api/v1/stocks/changed?limit=1')).body.meta.total as number;
  /** The webshop: lists and acknowledges (with revisions) until nothing is pending. */
  const drain = async () => {
    for (;;) {
      const page = (await call('GET', '/api/v1/stocks/changed?limit=1000')).body.payload as Change[];
      if (page.length === 0) return;
      seen.push(...page);
      const items = page.map((c) => ({ id: c.id, revision: c.revision }));
      const ack = await call('POST', '/api/v1/stocks/changed/batch-delete', { items });
      expect(ack.body).toMatchObject({ success: true, acknowledged: items.length, notListed: [] });
    }
  };
  const stocks = (round: number) =>
    Array.from({ length: ENTRIES }, (_, i) => ({
      supplier_external_id: SUPPLIER,
      product_external_id: `P${i}`,
      quantity: round * 100_000 + i,
    }));

  it.each([
    { round: 1, key: 'chunk-crash-1' as string | null },
    { round: 2, key: null },
  ])(
    'round $round (Idempotency-Key: $key): nothing lost or duplicated, each change acknowledged once',
    async ({ round, key }) => {
      const headers: Record<string, string> = key ? { 'idempotency-key': key } : {};
      const body = { stocks: stocks(round) };
      server = await serveProcess(env, { built: true });
      const inFlight = call('POST', '/api/v1/stocks', body, headers).catch((error: unknown) => error);
      // Polls are answered between chunks: the first one that sees part of the push triggers the kill.
      let partial = 0;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && partial === 0) {
        const total = await pendingTotal();
        if (total > 0 && total < ENTRIES) partial = total;
      }
      await server.stop('SIGKILL');
      expect(partial).toBeGreaterThan(0);
      expect(String(await inFlight)).toMatch(/fetch failed/);

      server = await serveProcess(env, { built: true });
      // Whole chunks only: every entry of this round changes, so a committed chunk counts CHUNK.
      const committed = await pendingTotal();
      expect(committed % CHUNK).toBe(0);
      expect(committed).toBeGreaterThan(0);
      expect(committed).toBeLessThan(ENTRIES);
      // The webshop takes what committed before the ERP retries.
      await drain();

      let retry = await call('POST', '/api/v1/stocks', body, headers);
      // With the key: 409 while the dead request's lease (30 s) runs, then the retry takes it over.
      while (key && retry.status === 409) {
        await new Promise((r) => setTimeout(r, 1_000));
        retry = await call('POST', '/api/v1/stocks', body, headers);
      }
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({
        success: true,
        processed: ENTRIES,
        created: round === 1 ? ENTRIES - committed : 0,
        updated: round === 1 ? 0 : ENTRIES - committed,
      });
      if (key) {
        const replay = await call('POST', '/api/v1/stocks', body, headers);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.text).toBe(retry.text);
      }
      await drain();

      // Each change of this round listed (and acknowledged) exactly once, with its own values.
      const thisRound = seen.filter((c) => c.revision === round);
      expect(thisRound).toHaveLength(ENTRIES);
      expect(new Set(thisRound.map((c) => c.productExternalId)).size).toBe(ENTRIES);
      for (const c of thisRound) expect(c.quantity).toBe(round * 100_000 + Number(c.productExternalId.slice(1)));
      await server.stop('SIGTERM');
      server = undefined;

      // The store itself: every entry once, at this round's quantity and revision, acknowledged.
      const db = await openDatabase({ dataDir, logger: pino({ level: 'silent' }) });
      try {
        const rows = await db.prisma.stock.findMany({ where: { supplierExternalId: SUPPLIER } });
        expect(rows).toHaveLength(ENTRIES);
        for (const row of rows) {
          expect(row).toMatchObject({
            quantity: round * 100_000 + Number(row.productExternalId.slice(1)),
            revision: round,
            pending: false,
          });
          expect(row.ackedRevision).toBe(round);
        }
      } finally {
        await db.close();
      }
    },
    240_000,
  );

  it('hands every change out once over both rounds', () => {
    expect(seen).toHaveLength(2 * ENTRIES);
    expect(new Set(seen.map((c) => `${c.id}@${c.revision}`)).size).toBe(2 * ENTRIES);
  });
});
