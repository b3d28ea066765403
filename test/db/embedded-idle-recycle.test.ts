import { openEmbeddedTestStore, products } from '../support/embedded-store';
import { startTestServer, type TestServer } from '../support/http';

/*
 * ADR 0039: a store on disk that goes quiet after work recycles its PGlite instance (no memory
 * ceiling here), keeps everything it committed, and is not recycled again while it stays quiet.
 */

describe('recycling the embedded store when quiet after work', () => {
  let store: Awaited<ReturnType<typeof openEmbeddedTestStore>>;
  let api: TestServer;

  beforeAll(async () => {
    // A short window, and 200 ms of work counts: more than the background polls of a fresh
    // instance do in the seconds this waits, even on a loaded machine, and less than `work()`.
    store = await openEmbeddedTestStore({ idleRecycle: { windowMs: 300, quiet: { quietShare: 0.01, minWorkMs: 200 } } });
    api = await startTestServer(store.asTestDatabase());
  }, 120_000);
  afterAll(async () => {
    await api.close();
    await store.db.close();
    await store.remove();
  });

  const recycles = () => store.db.embedded!.pglite.recycles().count;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** A statement that keeps the store busy for 0.6 s or more on this machine (2 × 10^6 rows). */
  const work = () => store.db.embedded!.pglite.query('SELECT count(*) FROM generate_series(1, 2000000)');
  const until = async (condition: () => boolean, ms: number) => {
    for (const end = Date.now() + ms; !condition() && Date.now() < end;) await sleep(50);
  };

  it('recycles once after the pushes, keeps them, and not again while quiet', async () => {
    const before = recycles();
    for (let round = 0; round < 3; round++) {
      const res = await api.request('POST', '/api/v1/products', { body: { products: products(200, round) } });
      expect(res.status).toBe(200);
    }
    await work();
    await until(() => recycles() > before, 30_000);
    expect(recycles()).toBe(before + 1);

    // Quiet for many windows: the fresh instance has done no work, so it stays.
    await sleep(2_000);
    expect(recycles()).toBe(before + 1);

    // What was pushed is there after the recycle, and the store answers.
    const listed = await api.request<{ payload: unknown[] }>('GET', '/api/v1/updated-products?limit=500');
    expect(listed.status).toBe(200);
    expect(await store.db.prisma.product.count()).toBe(200);
    expect(await store.db.prisma.product.count({ where: { pending: true } })).toBe(200);
  }, 120_000);

  it('does not recycle under an open transaction, however quiet', async () => {
    const pglite = store.db.embedded!.pglite;
    let before = 0;
    await pglite.transaction(async (tx) => {
      // Counted inside the transaction: no recycle can come between the reading and the work.
      before = recycles();
      // Work first, so that only the transaction stands in the way.
      await tx.query('SELECT count(*) FROM generate_series(1, 2000000)');
      await sleep(1_500); // five quiet windows inside the transaction
      expect(recycles()).toBe(before);
    });
    await until(() => recycles() > before, 30_000);
    expect(recycles()).toBe(before + 1);
  }, 120_000);

  it('does not count work done in windows that were not busy enough to be a load', async () => {
    // No window is ever busy enough (not twice its length either: a late timer stretches a window
    // on a loaded machine): the same work as above never counts.
    const neverBusy = await openEmbeddedTestStore({
      idleRecycle: { windowMs: 300, quiet: { quietShare: 0.01, workShare: Number.POSITIVE_INFINITY, minWorkMs: 200 } },
    });
    try {
      const pglite = neverBusy.db.embedded!.pglite;
      await pglite.query('SELECT count(*) FROM generate_series(1, 2000000)');
      await sleep(2_000); // six quiet windows after the work
      expect(pglite.recycles().count).toBe(0);
    } finally {
      await neverBusy.db.close();
      await neverBusy.remove();
    }
  }, 120_000);
});
