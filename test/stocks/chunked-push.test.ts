import { pushChunkRecords, setPushChunkRecords } from '../../src/changes/push-chunks';
import { backends } from '../support/database';
import { useApiFixture } from '../support/http';

/**
 * A large stock push on the embedded store commits in ordered chunks (ADR 0040). A webshop polling
 * and acknowledging while it runs must see every entry exactly once per change, and on the
 * embedded store its polls must get answers between the chunks, not only after the whole push.
 * On PostgreSQL the push stays one transaction: the same poller must see the same.
 */
const ENTRIES = 3_000;
const CHUNK = 100;

type Change = { id: number; revision: number; productExternalId: string; quantity: number };

describe.each(backends)('a chunked stock push polled while it runs, on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const stocks = (round: number) =>
    Array.from({ length: ENTRIES }, (_, i) => ({
      supplier_external_id: 'S-CHUNK',
      product_external_id: `P${i}`,
      quantity: round * 1000 + i,
    }));

  beforeAll(() => {
    setPushChunkRecords(ctx.db.prisma, CHUNK);
  });

  /** Polls and acknowledges (with revisions) until `done` and a drained list; every change listed. */
  async function pollUntil(done: () => boolean) {
    const seen: Change[] = [];
    const totalsDuringPush: number[] = [];
    for (;;) {
      const finished = done();
      const page = (await ctx.api.request('GET', '/api/v1/stocks/changed?limit=500')).body as {
        payload: Change[];
        meta: { total: number };
      };
      if (!finished) totalsDuringPush.push(page.meta.total);
      if (page.payload.length === 0) {
        if (finished) return { seen, totalsDuringPush };
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      seen.push(...page.payload);
      const items = page.payload.map((c) => ({ id: c.id, revision: c.revision }));
      const ack = await ctx.api.request('POST', '/api/v1/stocks/changed/batch-delete', { body: { items } });
      expect(ack.body).toMatchObject({ success: true, acknowledged: items.length, notListed: [] });
    }
  }

  it.each([1, 2])(
    'round %i: every entry listed once, acknowledged once, none left',
    async (round) => {
      expect(pushChunkRecords(ctx.db.prisma)).toBe(backend === 'pglite' ? CHUNK : 0);
      let answered = false;
      const push = ctx.api.request('POST', '/api/v1/stocks', { body: { stocks: stocks(round) } }).finally(() => (answered = true));
      const [res, polled] = await Promise.all([push, pollUntil(() => answered)]);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, processed: ENTRIES, [round === 1 ? 'created' : 'updated']: ENTRIES });

      // Exactly once: one listing per entry, at this round's revision and quantity.
      const byProduct = new Map(polled.seen.map((c) => [c.productExternalId, c]));
      expect(polled.seen).toHaveLength(ENTRIES);
      expect(byProduct.size).toBe(ENTRIES);
      for (const [product, change] of byProduct) {
        const i = Number(product.slice(1));
        expect(change).toMatchObject({ revision: round, quantity: round * 1000 + i });
      }
      const after = (await ctx.api.request('GET', '/api/v1/stocks/changed')).body;
      expect(after.meta.total).toBe(0);
      expect(await ctx.db.prisma.stock.count({ where: { supplierExternalId: 'S-CHUNK', pending: true } })).toBe(0);

      if (backend === 'pglite') {
        // Polls were answered between chunks: some saw a part of the push, a whole number of chunks.
        const partial = polled.totalsDuringPush.filter((t) => t > 0 && t < ENTRIES);
        expect(partial.length).toBeGreaterThan(0);
      }
    },
    120_000,
  );

  it('a push sent while another runs applies after it, whole: the newer values win', async () => {
    const entry = (i: number, quantity: number) => ({ supplier_external_id: 'S-TWO', product_external_id: `P${i}`, quantity });
    const older = Array.from({ length: ENTRIES }, (_, i) => entry(i, 111));
    // Every seventh key: its chunks reach far ahead in key order of the older push's chunks.
    const newer = Array.from({ length: ENTRIES / 6 }, (_, j) => entry(j * 7, 222)).filter(
      (e) => Number(e.product_external_id.slice(1)) < ENTRIES,
    );
    const pending = async () => (await ctx.api.request('GET', '/api/v1/stocks/changed?limit=1')).body.meta.total as number;
    const before = await pending();
    const first = ctx.api.request('POST', '/api/v1/stocks', { body: { stocks: older } });
    // The older push is under way (on PostgreSQL its one transaction may already have committed).
    while ((await pending()) === before && backend === 'pglite') await new Promise((r) => setTimeout(r, 1));
    const second = ctx.api.request('POST', '/api/v1/stocks', { body: { stocks: newer } });
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    const stored = await ctx.db.prisma.stock.findMany({ where: { supplierExternalId: 'S-TWO' } });
    expect(stored).toHaveLength(ENTRIES);
    const wrong = stored.filter((s) => s.quantity !== (Number(s.productExternalId.slice(1)) % 7 === 0 ? 222 : 111));
    expect(wrong.map((s) => s.productExternalId)).toEqual([]);
  }, 120_000);

  it('a dry run stays one rolled-back transaction', async () => {
    const res = await ctx.api.request('POST', '/api/v1/stocks?dry_run=true', { body: { stocks: stocks(9) } });
    expect(res.body).toMatchObject({ dryRun: true, processed: ENTRIES, updated: ENTRIES, recordsOmitted: ENTRIES - 1000 });
    expect(await ctx.db.prisma.stock.count({ where: { supplierExternalId: 'S-CHUNK', pending: true } })).toBe(0);
  }, 60_000);

  it('later entries of a key win across what would be chunk borders, and stale entries are skipped per chunk', async () => {
    const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const first = Array.from({ length: 250 }, (_, i) => ({
      supplier_external_id: 'S-ORDER',
      product_external_id: `P${i}`,
      quantity: 1,
      source_updated_at: t(10),
    }));
    // The same keys again after 250 others: the later wins; an older time for P0..P9 loses.
    const later = first.map((e, i) => ({ ...e, quantity: 2, source_updated_at: t(i < 10 ? 5 : 20) }));
    const res = await ctx.api.request('POST', '/api/v1/stocks', { body: { stocks: [...first, ...later] } });
    expect(res.body).toMatchObject({ processed: 500, created: 250, skipped: 10 });
    const stored = await ctx.db.prisma.stock.findMany({ where: { supplierExternalId: 'S-ORDER' } });
    expect(stored).toHaveLength(250);
    for (const s of stored) expect(s.quantity).toBe(Number(s.productExternalId.slice(1)) < 10 ? 1 : 2);

    // A re-push with the stored times: equal is applied, nothing changes (a retry after a crash).
    const again = await ctx.api.request('POST', '/api/v1/stocks', { body: { stocks: later.slice(10) } });
    expect(again.body).toMatchObject({ success: true, processed: 240, created: 0, updated: 0, skipped: 0 });
    // Older than stored in a later chunk: skipped, reported with its index.
    const stale = later.map((e, i) => (i === 230 ? { ...e, quantity: 9, source_updated_at: t(15) } : e)).slice(10);
    const staleRes = await ctx.api.request('POST', '/api/v1/stocks', { body: { stocks: stale } });
    expect(staleRes.body).toMatchObject({ success: false, skipped: 1, errors: [expect.objectContaining({ index: 220, code: 'STALE' })] });
  }, 60_000);
});
