import { createToken, verifyToken } from '../../src/auth/token.service';
import { channelIdOf, channelLag, createChannel, deleteChannel, listChannels } from '../../src/channels/channel.service';
import { compactPendingCounts } from '../../src/changes/pending-counts';
import { compactChannelPendingCounts } from '../../src/changes/channel-counts';
import { acknowledgeMany, acknowledgeOne } from '../../src/changes/tracked.service';
import { listUpdatedProducts, syncProducts } from '../../src/products/product.service';
import { listUpdatedSaleOrders, syncSaleOrders } from '../../src/sale-orders/sale-order.service';
import { listChangedStocks, syncStocks } from '../../src/stocks/stock.service';
import { previousValues } from '../../src/changes/tracked-fields';
import { resync } from '../../src/reconciliation/resync.service';
import { dataDigest, reconcile } from '../../src/reconciliation/reconciliation.service';
import { backends, openTestDatabase, type TestDatabase } from '../support/database';

/** Channels (issue 31, ADR 0045): each its own pending state over one set of records. */
describe.each(backends)('channels on %s', (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase(backend);
  });
  afterAll(() => db?.close());

  let round = 0;
  /** A fresh pair of channels and readers on them, over an empty product table. */
  async function twoShops(from: 'now' | 'all' = 'now') {
    round++;
    await db.prisma.product.deleteMany();
    const a = { key: `token:a${round}`, channelId: await channelIdOf(db.prisma, (await createChannel(db.prisma, `a${round}`, from)).name) };
    const b = { key: `token:b${round}`, channelId: await channelIdOf(db.prisma, (await createChannel(db.prisma, `b${round}`, from)).name) };
    return { a, b };
  }

  const list = (reader: { key: string | null; channelId: number | null }) => listUpdatedProducts(db, reader, { limit: 500 });

  it('keeps one pending state per channel: an ack on A leaves B as it was', async () => {
    const { a, b } = await twoShops();
    await syncProducts(db, [{ external_id: 'P1', name: 'Chair', price: 10 }], 'erp_sync');

    const onA = await list(a);
    const onB = await list(b);
    expect(onA.meta.total).toBe(1);
    expect(onB.meta.total).toBe(1);
    expect(onA.payload[0]).toMatchObject({ externalId: 'P1', isNew: true, changedFields: ['name', 'price'] });
    expect(onB.payload[0]).toEqual(onA.payload[0]);

    await acknowledgeMany(db.prisma, 'products', a, { ids: [onA.payload[0]!.id] });
    expect((await list(a)).meta).toMatchObject({ total: 0 });
    expect((await list(a)).payload).toEqual([]);
    const stillOnB = await list(b);
    expect(stillOnB.meta.total).toBe(1);
    expect(stillOnB.payload[0]).toEqual(onB.payload[0]);

    await acknowledgeOne(db.prisma, 'products', 'Product', b, { id: onB.payload[0]!.id, revision: onB.payload[0]!.revision });
    expect((await list(b)).meta.total).toBe(0);
    expect((await list(a)).meta.total).toBe(0);

    // A later change is pending for both, each measured from its own acknowledgement.
    await syncProducts(db, [{ external_id: 'P1', price: 12 }], 'erp_sync');
    for (const reader of [a, b]) {
      const page = await list(reader);
      expect(page.meta.total).toBe(1);
      expect(page.payload[0]).toMatchObject({ isNew: false, changedFields: ['price'], revision: 2 });
    }
  });

  it('tells changedFields and previous as each channel last acknowledged them', async () => {
    const { a, b } = await twoShops();
    await syncProducts(db, [{ external_id: 'P1', name: 'Chair', price: 10 }], 'erp_sync');
    for (const reader of [a, b])
      await acknowledgeMany(db.prisma, 'products', reader, { ids: (await list(reader)).payload.map((p) => p.id) });
    await syncProducts(db, [{ external_id: 'P1', price: 11 }], 'erp_sync');
    await acknowledgeMany(db.prisma, 'products', a, { ids: (await list(a)).payload.map((p) => p.id) });
    await syncProducts(db, [{ external_id: 'P1', name: 'Armchair' }], 'erp_sync');

    const [onA] = (await list(a)).payload;
    const [onB] = (await list(b)).payload;
    expect(onA).toMatchObject({ changedFields: ['name'] });
    expect(onB).toMatchObject({ changedFields: ['name', 'price'] });
    // previous is read by the GraphQL field from pendingValues and ackedRevision.
    expect(previousValues(onA as never)).toEqual({ name: 'Chair' });
    expect(previousValues(onB as never)).toEqual({ name: 'Chair', price: 10 });

    // Channel default acknowledging everything keeps the values B still needs.
    const onDefault = { key: 'token:default-shop', channelId: null };
    await acknowledgeMany(db.prisma, 'products', onDefault, { ids: (await list(onDefault)).payload.map((p) => p.id) });
    expect(previousValues((await list(b)).payload[0] as never)).toEqual({ name: 'Chair', price: 10 });
  });

  it('an ack by id covers what that token was listed on its channel, nothing newer', async () => {
    const { a } = await twoShops();
    await syncProducts(db, [{ external_id: 'P1', name: 'Chair' }], 'erp_sync');
    const shown = await list(a);
    await syncProducts(db, [{ external_id: 'P1', name: 'Stool' }], 'erp_sync');
    const result = await acknowledgeMany(db.prisma, 'products', a, { ids: [shown.payload[0]!.id] });
    expect(result.acknowledged).toBe(1);
    const after = await list(a);
    expect(after.meta.total).toBe(1);
    expect(after.payload[0]).toMatchObject({ revision: 2, isNew: false, changedFields: ['name'] });
    // Another token on the same channel was never listed it.
    const other = { key: 'token:other', channelId: a.channelId };
    expect((await acknowledgeMany(db.prisma, 'products', other, { ids: [shown.payload[0]!.id] })).notListed).toEqual([
      shown.payload[0]!.id,
    ]);
  });

  it('--from all hands out every current record as new; --from now none of them', async () => {
    await db.prisma.product.deleteMany();
    await syncProducts(
      db,
      [1, 2, 3].map((i) => ({ external_id: `F${i}`, name: `n${i}` })),
      'erp_sync',
    );
    round++;
    const all = { key: 'token:all', channelId: await channelIdOf(db.prisma, (await createChannel(db.prisma, `all${round}`, 'all')).name) };
    const now = { key: 'token:now', channelId: await channelIdOf(db.prisma, (await createChannel(db.prisma, `now${round}`, 'now')).name) };
    const everything = await list(all);
    expect(everything.meta.total).toBe(3);
    expect(everything.payload.map((p) => [p.externalId, p.isNew])).toEqual([
      ['F1', true],
      ['F2', true],
      ['F3', true],
    ]);
    expect(await list(now)).toMatchObject({ payload: [], meta: { total: 0 } });
    await syncProducts(db, [{ external_id: 'F2', name: 'changed' }], 'erp_sync');
    expect((await list(now)).payload).toMatchObject([{ externalId: 'F2', isNew: false, changedFields: ['name'] }]);
    expect((await list(all)).meta.total).toBe(3);
  });

  it('keeps exact counts per channel and scope through pushes, acks and compaction', async () => {
    const { a, b } = await twoShops();
    await db.prisma.saleOrder.deleteMany();
    await syncProducts(
      db,
      Array.from({ length: 30 }, (_, i) => ({ external_id: `C${i}`, price: i })),
      'erp_sync',
    );
    await acknowledgeMany(db.prisma, 'products', a, { ids: (await list(a)).payload.slice(0, 10).map((p) => p.id) });
    await syncProducts(
      db,
      Array.from({ length: 15 }, (_, i) => ({ external_id: `C${i * 2}`, price: 100 + i })),
      'erp_sync',
    );
    await compactPendingCounts(db.prisma);
    await compactChannelPendingCounts(db.prisma);
    for (const reader of [a, b]) {
      const page = await list(reader);
      expect(page.meta.total).toBe(page.payload.length);
    }
    expect((await list(a)).meta.total).toBe(25); // 20 never acked + 5 of the first 10 changed again
    expect((await list(b)).meta.total).toBe(30);

    const orders = await syncSaleOrders(
      db,
      [
        { external_id: 'S1', direction: 'outbound', partner_external_id: 'X' },
        { external_id: 'S2', direction: 'inbound', partner_external_id: 'X' },
      ],
      'erp_sync',
    );
    expect(orders.success).toBe(true);
    const outbound = await listUpdatedSaleOrders(db, a, { limit: 10, direction: 'outbound' });
    expect(outbound.meta.total).toBe(1);
    await acknowledgeMany(db.prisma, 'sale_orders', a, { ids: outbound.payload.map((o) => o.id) });
    expect((await listUpdatedSaleOrders(db, a, { limit: 10, direction: 'outbound' })).meta.total).toBe(0);
    expect((await listUpdatedSaleOrders(db, a, { limit: 10, direction: 'inbound' })).meta.total).toBe(1);
    expect((await listUpdatedSaleOrders(db, b, { limit: 10, direction: 'outbound' })).meta.total).toBe(1);
  });

  it('keeps counts exact when records are deleted, acknowledged above the cursor or not', async () => {
    const { a } = await twoShops();
    await syncProducts(
      db,
      [
        { external_id: 'D1', name: 'x' },
        { external_id: 'D2', name: 'y' },
      ],
      'erp_sync',
    );
    const [first, second] = (await list(a)).payload;
    // The second acknowledged, the first not: the cursor stays below both.
    await acknowledgeMany(db.prisma, 'products', a, { items: [{ id: second!.id, revision: second!.revision }] });
    expect((await list(a)).meta.total).toBe(1);
    await db.prisma.product.deleteMany({ where: { id: { in: [first!.id, second!.id] } } });
    expect((await list(a)).meta).toMatchObject({ total: 0 });
  });

  it('stock pushes count on every channel without a row per channel per record', async () => {
    const { a, b } = await twoShops();
    await db.prisma.stock.deleteMany();
    const stocks = Array.from({ length: 50 }, (_, i) => ({ supplier_external_id: 'SUP', product_external_id: `SP${i}`, quantity: i }));
    expect((await syncStocks(db, stocks)).success).toBe(true);
    const acksBefore = await db.prisma.channelAck.count();
    expect(
      (
        await syncStocks(
          db,
          stocks.map((s) => ({ ...s, quantity: s.quantity + 1 })),
        )
      ).success,
    ).toBe(true);
    expect(await db.prisma.channelAck.count()).toBe(acksBefore);
    const page = await listChangedStocks(db, a, { limit: 500 });
    expect(page.meta.total).toBe(50);
    await acknowledgeMany(db.prisma, 'stocks', a, { ids: page.payload.map((s) => s.id) });
    expect((await listChangedStocks(db, a, { limit: 500 })).meta.total).toBe(0);
    expect((await listChangedStocks(db, b, { limit: 500 })).meta.total).toBe(50);
    const lag = await channelLag(db.prisma, b.channelId);
    expect(lag.find((l) => l.entityType === 'stock')).toMatchObject({ pending: 50 });
    expect(lag.find((l) => l.entityType === 'stock')!.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(0);
  });

  it('deleting a channel revokes its tokens; default cannot be deleted', async () => {
    round++;
    await createChannel(db.prisma, `gone${round}`);
    const { token } = await createToken(db.prisma, `shop-gone${round}`, 'webshop', `gone${round}`);
    expect((await verifyToken(db.prisma, token, { lastUsedResolutionMs: 60_000 }))?.channelId).toEqual(expect.any(Number));
    expect((await listChannels(db.prisma)).find((c) => c.name === `gone${round}`)?.tokens).toEqual([`shop-gone${round}`]);
    await deleteChannel(db.prisma, `gone${round}`);
    expect(await verifyToken(db.prisma, token, { lastUsedResolutionMs: 60_000 })).toBeNull();
    expect((await listChannels(db.prisma)).map((c) => c.name)).not.toContain(`gone${round}`);
    await expect(deleteChannel(db.prisma, 'default')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(createChannel(db.prisma, 'default')).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(createChannel(db.prisma, 'Bad Name')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(createToken(db.prisma, `erp-on-channel${round}`, 'erp', 'a1')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('a resync replays to the channel it names and to no other', async () => {
    const { a, b } = await twoShops();
    await syncProducts(db, [{ external_id: 'R1', name: 'Desk', price: 5 }], 'erp_sync');
    const onDefault = { key: 'token:default-resync', channelId: null };
    for (const reader of [a, b, onDefault])
      await acknowledgeMany(db.prisma, 'products', reader, { ids: (await list(reader)).payload.map((p) => p.id) });

    expect((await resync(db, { entity_type: 'product', external_ids: ['R1'], channel: `a${round}` })).resynced).toBe(1);
    expect((await list(a)).payload).toMatchObject([{ externalId: 'R1', isNew: false, changedFields: ['name', 'price'] }]);
    expect((await list(a)).meta.total).toBe(1);
    expect((await list(b)).meta.total).toBe(0);
    expect((await list(onDefault)).meta.total).toBe(0);

    expect((await resync(db, { entity_type: 'product', external_ids: ['R1'] })).resynced).toBe(1);
    expect((await list(onDefault)).payload).toMatchObject([{ externalId: 'R1', changedFields: ['name', 'price'] }]);
    expect((await list(b)).meta).toMatchObject({ total: 0 });
    expect((await list(b)).payload).toEqual([]);
    expect((await list(a)).meta.total).toBe(1);
    await expect(resync(db, { entity_type: 'product', channel: 'no-such-channel' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reconciles against the channel named: its acknowledgements, its pending records', async () => {
    const { a, b } = await twoShops();
    await syncProducts(
      db,
      [
        { external_id: 'Q1', name: 'Vase' },
        { external_id: 'Q2', name: 'Jar' },
      ],
      'erp_sync',
    );
    await acknowledgeMany(db.prisma, 'products', a, { ids: (await list(a)).payload.map((p) => p.id) });
    const items = [{ external_id: 'Q1', digest: dataDigest({ name: 'Vase' }) }];
    expect(await reconcile(db, 'product', { items, to_end: true }, a.channelId)).toMatchObject({
      compared: 1,
      missing: ['Q2'],
      mismatched: [],
      pending: [],
    });
    expect(await reconcile(db, 'product', { items, to_end: true }, b.channelId)).toMatchObject({
      compared: 0,
      missing: [],
      pending: ['Q1'],
    });
    const resynced = await reconcile(db, 'product', { items, to_end: true, resync: true }, a.channelId);
    expect(resynced.resynced).toBe(1);
    expect((await list(a)).payload.map((p) => p.externalId)).toEqual(['Q2']);
    expect((await list(b)).meta.total).toBe(2);
  });

  /**
   * Pushes, polls and acknowledgements on two channels at once (two tokens on A): whatever
   * interleaving, each channel's total equals its pending records counted row by row, no channel
   * ever holds an acknowledgement of a revision none of its tokens was shown, and once the pushes
   * stop, acking what is listed empties each channel without touching the other.
   */
  it('keeps counts exact and acks within what was shown under concurrent pushes, polls and acks', async () => {
    const { a, b } = await twoShops();
    const a2 = { key: `token:a2-${round}`, channelId: a.channelId };
    const shownMax = new Map<number, Map<number, number>>([
      [a.channelId, new Map()],
      [b.channelId, new Map()],
    ]);
    let pushing = true;
    const pusher = (async () => {
      for (let i = 0; i < 25; i++) {
        const batch = Array.from({ length: 8 }, (_, k) => ({ external_id: `K${(i * 3 + k) % 20}`, price: i * 10 + k }));
        expect((await syncProducts(db, batch, 'erp_sync')).success).toBe(true);
      }
      pushing = false;
    })();
    const consumer = async (reader: { key: string; channelId: number }, byRevision: boolean) => {
      const shown = shownMax.get(reader.channelId)!;
      do {
        const page = await list(reader);
        for (const p of page.payload) shown.set(p.id, Math.max(shown.get(p.id) ?? 0, p.revision));
        if (page.payload.length === 0) continue;
        const half = page.payload.filter((_, i) => i % 2 === 0);
        await acknowledgeMany(
          db.prisma,
          'products',
          reader,
          byRevision ? { items: half.map((p) => ({ id: p.id, revision: p.revision })) } : { ids: half.map((p) => p.id) },
        );
      } while (pushing);
    };
    await Promise.all([pusher, consumer(a, false), consumer(a2, true), consumer(b, false)]);

    const pendingRowByRow = async (channelId: number) =>
      (
        await db.prisma.$queryRawUnsafe<Array<{ n: number }>>(
          `SELECT count(*)::int AS n FROM products AS t
             LEFT JOIN channel_acks AS a ON a.channel_id = $1 AND a.table_name = 'products' AND a.record_id = t.id
            WHERE (t.updated_at, t.id) > (SELECT stamp, record_id FROM channel_cursors WHERE channel_id = $1 AND table_name = 'products')
              AND (a.acked_revision IS NULL OR a.acked_revision < t.revision)`,
          channelId,
        )
      )[0]!.n;
    for (const reader of [a, b]) {
      const page = await list(reader);
      expect(page.meta.total).toBe(page.payload.length);
      expect(page.meta.total).toBe(await pendingRowByRow(reader.channelId));
      const acks = await db.prisma.channelAck.findMany({ where: { channelId: reader.channelId, tableName: 'products' } });
      for (const ack of acks) expect(ack.ackedRevision).toBeLessThanOrEqual(shownMax.get(reader.channelId)!.get(ack.recordId) ?? 0);
    }
    const before = (await list(b)).meta.total;
    await acknowledgeMany(db.prisma, 'products', a, { ids: (await list(a)).payload.map((p) => p.id) });
    expect((await list(a)).meta.total).toBe(0);
    expect(await pendingRowByRow(a.channelId)).toBe(0);
    // Nothing pending: the cursor stands on the last record, so the next listing starts past them all.
    const last = await db.prisma.product.findFirstOrThrow({ orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }] });
    expect(
      await db.prisma.channelCursor.findUniqueOrThrow({
        where: { channelId_tableName: { channelId: a.channelId, tableName: 'products' } },
      }),
    ).toMatchObject({
      stamp: last.updatedAt,
      recordId: last.id,
    });
    expect((await list(b)).meta.total).toBe(before);
  });
});
