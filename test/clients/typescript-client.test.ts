import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createToken } from '../../src/auth/token.service';
import { signatureHeaders } from '../../src/deliveries/delivery';
import { encodeKeyring, generateSecret, keyringOf, rotateKeyring } from '../../src/deliveries/signing-keys';
import { createSyncGatewayClient, verifyWebhook, WebhookVerificationError } from '../../clients/typescript/src';
import { useApiFixture } from '../support/http';
import { ROOT } from '../support/process';
import { waitFor } from '../support/wait-for';

/**
 * The TypeScript client (clients/typescript) against the real server: the feed loop, pushes under
 * retries, webhook verification against the server's own signing, and a webshop loop killed with
 * SIGKILL at random moments. HTTP-only: one provider suffices.
 */
describe('the TypeScript client', () => {
  const ctx = useApiFixture('embedded');
  let erp: string;
  let shop: string;
  let viewer: string;
  beforeAll(async () => {
    erp = (await createToken(ctx.db.prisma, 'client-erp', 'erp')).token;
    shop = (await createToken(ctx.db.prisma, 'client-shop', 'webshop')).token;
    viewer = (await createToken(ctx.db.prisma, 'client-viewer', 'viewer')).token;
  });
  beforeEach(async () => {
    await ctx.db.prisma.product.deleteMany();
  });
  const client = (token: string, options: Partial<Parameters<typeof createSyncGatewayClient>[0]> = {}) =>
    createSyncGatewayClient({ baseUrl: ctx.api.url, token, retry: { baseDelayMs: 10 }, ...options });
  const pendingProducts = async () =>
    (await ctx.api.request('GET', '/api/v1/updated-products?limit=1', { token: viewer })).body.meta.total as number;

  it('pages through every pending change, acks by revision, and hands out a change that arrived meanwhile again', async () => {
    await client(erp).push(
      'product',
      Array.from({ length: 250 }, (_, i) => ({ external_id: `C-${i}`, name: `n${i}` })),
    );
    const seen: Array<{ externalId: string; revision: number }> = [];
    let changedMeanwhile = false;
    for await (const page of client(shop).feed('product', { limit: 100, stopWhenEmpty: true })) {
      seen.push(...page.records.map((r) => ({ externalId: r.externalId, revision: r.revision })));
      if (!changedMeanwhile) {
        // The ERP changes a record of this page after it was listed: the ack by revision must not cover it.
        await client(erp).push('product', [{ external_id: page.records[0]!.externalId, name: 'changed' }]);
        changedMeanwhile = true;
      }
      await page.ack();
    }
    expect(new Set(seen.map((s) => s.externalId)).size).toBe(250);
    expect(seen.filter((s) => s.externalId === 'C-0').map((s) => s.revision)).toEqual([1, 2]);
    expect(await pendingProducts()).toBe(0);
  });

  it('retries a push whose answer was lost under the same Idempotency-Key: applied once', async () => {
    let calls = 0;
    const keys: Array<string | null> = [];
    const losingFirstAnswer: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      keys.push(request.headers.get('idempotency-key'));
      const response = await fetch(request);
      if (++calls === 1) throw new TypeError('fetch failed: the connection dropped before the answer');
      return response;
    };
    const result = await client(erp, { fetch: losingFirstAnswer }).push('product', [{ external_id: 'ONCE', price: 1 }]);
    expect(calls).toBe(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(result).toMatchObject({ created: 1 }); // the first answer, replayed
    const { id } = await ctx.db.prisma.product.findUniqueOrThrow({ where: { externalId: 'ONCE' } });
    expect(await ctx.db.prisma.changeHistoryEntry.count({ where: { entityType: 'product', recordId: id } })).toBe(1);
  });

  it('waits what Retry-After says on a 503 and a 429', async () => {
    const retries: Array<{ status?: number; delayMs: number }> = [];
    const seen: string[] = [];
    let calls = 0;
    const busyTwice: typeof fetch = async (input, init) => {
      calls += 1;
      seen.push(`call ${calls}`);
      if (calls === 1) return new Response('{}', { status: 503, headers: { 'retry-after': '1' } });
      if (calls === 2) return new Response('{}', { status: 429, headers: { 'retry-after': '0' } });
      return fetch(new Request(input, init));
    };
    const onRetry = (r: { status?: number; delayMs: number }) => {
      retries.push({ status: r.status!, delayMs: r.delayMs });
      // A timer of a millisecond less, set before the client's own wait: Node runs timers in the
      // order they fall due, so it comes first if, and only if, the client waits the whole second.
      if (r.status === 503) setTimeout(() => seen.push('999 ms after the 503'), r.delayMs - 1);
    };
    await client(erp, { fetch: busyTwice, retry: { onRetry } }).push('product', [{ external_id: 'BUSY' }]);
    expect(retries).toEqual([
      { status: 503, delayMs: 1000 },
      { status: 429, delayMs: 0 },
    ]);
    expect(seen).toEqual(['call 1', '999 ms after the 503', 'call 2', 'call 3']);
  });

  it("verifies deliveries signed by the server's own code, on both headers and through a rotation", () => {
    const body = JSON.stringify({ event: 'sync_failure', external_id: 'X' });
    const now = Math.floor(Date.now() / 1000);
    const secret = generateSecret();
    const headers = signatureHeaders(encodeKeyring(keyringOf(secret)), 'msg_1', now, body);
    expect(verifyWebhook(headers, body, secret)).toEqual(JSON.parse(body));
    const specOnly = { 'x-webhook-signature': headers['x-webhook-signature']! };
    expect(verifyWebhook(specOnly, body, secret)).toEqual(JSON.parse(body));
    expect(() => verifyWebhook(headers, `${body} `, secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(specOnly, body, generateSecret())).toThrow(WebhookVerificationError);

    const raw = 'an-older-raw-secret-16';
    expect(verifyWebhook(signatureHeaders(raw, 'msg_2', now, body), body, raw)).toEqual(JSON.parse(body));

    // During a rotation's grace: X-Webhook-Signature keeps the old secret, -Next carries the new one.
    const next = generateSecret();
    const rotating = signatureHeaders(encodeKeyring(rotateKeyring(keyringOf(secret), next, now + 3600)), 'msg_3', now, body);
    for (const known of [secret, next]) {
      expect(verifyWebhook(rotating, body, known)).toEqual(JSON.parse(body));
      expect(
        verifyWebhook(
          { 'x-webhook-signature': rotating['x-webhook-signature']!, 'x-webhook-signature-next': rotating['x-webhook-signature-next']! },
          body,
          known,
        ),
      ).toEqual(JSON.parse(body));
    }
    const stale = signatureHeaders(encodeKeyring(keyringOf(secret)), 'msg_4', now - 3600, body);
    expect(() => verifyWebhook(stale, body, secret)).toThrow(/too old/);
  });

  it('a webshop loop killed with SIGKILL at random moments applies every change, re-applying only what the client flagged', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sgw-client-'));
    const env = {
      ...process.env,
      BASE_URL: ctx.api.url,
      TOKEN: shop,
      JOURNAL_DIR: path.join(dir, 'journal'),
      APPLIED_LOG: path.join(dir, 'applied.log'),
      ACK_DELAY_MS: '100',
    };
    let child: ChildProcess | undefined;
    let onApplied: (() => void) | undefined;
    const start = () => {
      child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'shop-loop.ts')], {
        env,
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('applied')) onApplied?.();
      });
    };
    /** Resolves when the loop has applied a page and not yet acknowledged it. */
    const appliedNotAcked = () => new Promise<void>((resolve) => (onApplied = resolve));
    const kill = async () => {
      const running = child;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    };
    const erpClient = client(erp);
    let kills = 0;
    try {
      start();
      // 16 rounds: each pushes 60 products, 20 of them new and 40 changed, then the loop is killed
      // and started again: in even rounds as soon as it has applied a page and before it
      // acknowledges it (a crash that must come back flagged), in odd rounds 0 to 400 ms later.
      for (let round = 0; round < 16; round++) {
        const products = Array.from({ length: 60 }, (_, i) => ({ external_id: `K-${(round * 20 + i) % 400}`, name: `r${round}-${i}` }));
        const applying = appliedNotAcked();
        await erpClient.push('product', products);
        await (round % 2 === 0 ? applying : new Promise((resolve) => setTimeout(resolve, Math.random() * 400)));
        onApplied = undefined;
        await kill();
        kills += 1;
        start();
      }
      await waitFor(async () => (await pendingProducts()) === 0, 120_000, 'every change applied and acknowledged', { intervalMs: 50 });
    } finally {
      await kill();
    }
    const applied = (await readFile(env.APPLIED_LOG, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; revision: number; possiblyApplied: boolean });
    await rm(dir, { recursive: true, force: true });

    const products = await ctx.db.prisma.product.findMany({ select: { id: true, revision: true, pending: true } });
    expect(products.filter((p) => p.pending)).toEqual([]);
    const appliedKeys = new Set(applied.map((a) => `${a.id}@${a.revision}`));
    // Nothing lost: every record's last revision reached the shop.
    expect(products.filter((p) => !appliedKeys.has(`${p.id}@${p.revision}`))).toEqual([]);
    // A revision applied twice only where the client said it may have been applied already.
    const firsts = new Set<string>();
    const unflagged = applied.filter((a) => {
      const key = `${a.id}@${a.revision}`;
      const again = firsts.has(key);
      firsts.add(key);
      return again && !a.possiblyApplied;
    });
    expect(unflagged).toEqual([]);
    expect(kills).toBe(16);
    // The crashes between applying and acknowledging did happen, and came back flagged.
    expect(applied.filter((a) => a.possiblyApplied).length).toBeGreaterThanOrEqual(8);
  });
});
