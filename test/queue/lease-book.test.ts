import pino from 'pino';
import { createLeaseBook } from '../../src/queue/lease-book';
import { backends } from '../support/database';
import { queueOneDelivery, useApiFixture } from '../support/http';

const logger = pino({ level: 'silent' });
const LEASE_MS = 10_000;
const MINUTE = 60_000;

/** The lease book on its own, with the worker's clock injected: claims, renewals, releases. */
describe.each(backends)('lease book on %s', (backend) => {
  const ctx = useApiFixture(backend);
  let now: Date;
  const book = () => createLeaseBook({ database: ctx.db.prisma, clock: () => now, leaseMs: LEASE_MS, logger });
  const leaseOf = async (id: number) => (await ctx.db.prisma.outboundQueueItem.findUniqueOrThrow({ where: { id } })).leaseExpiresAt;

  beforeEach(async () => {
    await queueOneDelivery(ctx, 'L-1');
    // The clock a second ahead of the database's now(), so the item is due by it.
    now = new Date(Date.now() + 1_000);
  });

  it('claims a due item under a lease of the clock plus leaseMs, and does not claim it again while it holds it', async () => {
    const leases = book();
    const { token, items } = await leases.claim(10);
    expect(items).toHaveLength(1);
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(await leaseOf(items[0]!.id)).toEqual(new Date(now.getTime() + LEASE_MS));
    // Even once its lease ran out by the clock, the book leaves out what it holds.
    now = new Date(now.getTime() + 2 * LEASE_MS);
    expect((await leases.claim(10)).items).toEqual([]);
    // Released, its expired lease makes it claimable again.
    leases.release(items[0]!.id);
    expect((await leases.claim(10)).items.map((i) => i.id)).toEqual([items[0]!.id]);
  });

  it('renews the lease of every item it holds to the clock plus leaseMs, and of none it released', async () => {
    const leases = book();
    const [item] = (await leases.claim(10)).items;
    now = new Date(now.getTime() + 5 * MINUTE);
    await leases.renew();
    expect(await leaseOf(item!.id)).toEqual(new Date(now.getTime() + LEASE_MS));
    const renewedUntil = await leaseOf(item!.id);
    leases.release(item!.id);
    now = new Date(now.getTime() + 5 * MINUTE);
    await leases.renew();
    expect(await leaseOf(item!.id)).toEqual(renewedUntil);
  });

  it('renews only while the lease is its own: once another worker took the item over, the heartbeat leaves it', async () => {
    const first = book();
    const [item] = (await first.claim(10)).items;
    now = new Date(now.getTime() + 2 * LEASE_MS); // the first worker stalled past its lease
    const second = book();
    expect((await second.claim(10)).items.map((i) => i.id)).toEqual([item!.id]);
    const secondLease = await leaseOf(item!.id);
    now = new Date(now.getTime() + MINUTE);
    await first.renew();
    expect(await leaseOf(item!.id)).toEqual(secondLease);
  });
});
