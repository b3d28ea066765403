import { backends } from '../support/database';
import { useApiFixture } from '../support/http';
import type { QueueStatus } from '../../src/generated/prisma/enums';

const HOUR = 3_600_000;

describe.each(backends)('recover a window and resend on %s', (backend) => {
  const ctx = useApiFixture(backend);
  const base = Date.parse('2026-11-20T00:00:00.000Z');
  const at = (hours: number) => new Date(base + hours * HOUR);

  /** Items queued at the given hours with the given status; returns their ids in that order. */
  async function seed(items: Array<[status: QueueStatus, hours: number]>): Promise<number[]> {
    await ctx.db.prisma.outboundQueueItem.deleteMany();
    const ids: number[] = [];
    for (const [i, [status, hours]] of items.entries()) {
      const item = await ctx.db.prisma.outboundQueueItem.create({
        data: {
          status,
          attempts: status === 'pending' ? 0 : 6,
          createdAt: at(hours),
          scheduleStartedAt: at(hours),
          nextAttemptAt: at(hours + 8),
          completedAt: status === 'completed' ? at(hours + 1) : null,
          lastError: status === 'failed' ? 'HTTP 503 (gave up after 6 attempts)' : null,
          messageId: `msg_recover_${backend}_${i}`,
          payload: { event: 'sync_failure' },
        },
      });
      ids.push(item.id);
    }
    return ids;
  }
  const recover = (body: unknown) => ctx.api.request('POST', '/api/v1/outbound-queue/recover', { body });

  it('gives the failed items queued within [since, until) a fresh schedule, due now, and leaves the rest', async () => {
    const ids = await seed([
      ['failed', 1], // before the window
      ['failed', 2], // at since: in
      ['failed', 5],
      ['completed', 5], // not failed
      ['pending', 5],
      ['failed', 10], // at until: out
    ]);
    const before = Date.now();
    const res = await recover({ since: at(2).toISOString(), until: at(10).toISOString() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ recovered: 2 });
    const items = await ctx.db.prisma.outboundQueueItem.findMany({ orderBy: { id: 'asc' } });
    expect(items.map((i) => i.status)).toEqual(['failed', 'pending', 'pending', 'completed', 'pending', 'failed']);
    for (const id of [ids[1], ids[2]]) {
      const item = items.find((i) => i.id === id)!;
      expect(item).toMatchObject({ attempts: 0, leaseToken: null, messageId: `msg_recover_${backend}_${ids.indexOf(id!)}` });
      expect(item.nextAttemptAt.getTime()).toBeGreaterThanOrEqual(before - 1_000);
      expect(item.scheduleStartedAt.getTime()).toBe(item.nextAttemptAt.getTime());
    }
    // The untouched pending item keeps its own schedule.
    expect(items[4]!.nextAttemptAt.getTime()).toBe(at(13).getTime());

    // Without until: everything failed from since on.
    expect((await recover({ since: at(0).toISOString() })).body).toEqual({ recovered: 2 });
    expect(await ctx.db.prisma.outboundQueueItem.count({ where: { status: 'failed' } })).toBe(0);
  });

  it('recovers over GraphQL too', async () => {
    await seed([['failed', 3]]);
    const res = await ctx.api.graphql('mutation($since: DateTime!) { recoverQueueItems(since: $since, status: failed) { recovered } }', {
      since: at(0).toISOString(),
    });
    expect(res.body.data.recoverQueueItems).toEqual({ recovered: 1 });
  });

  it('refuses a window whose since is after its until, and bad or missing fields, naming the field', async () => {
    await seed([['failed', 3]]);
    const reversed = await recover({ since: at(5).toISOString(), until: at(4).toISOString() });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.details).toEqual([{ field: 'since', message: 'Must not be after until' }]);
    const fieldsOf = (res: { body: { error: { details: Array<{ field: string }> } } }) => res.body.error.details.map((d) => d.field);
    const missing = await recover({});
    expect(missing.status).toBe(400);
    expect(fieldsOf(missing)).toContain('since');
    const notADate = await recover({ since: 'yesterday' });
    expect(notADate.status).toBe(400);
    expect(fieldsOf(notADate)).toContain('since');
    const badStatus = await recover({ since: at(0).toISOString(), status: 'completed' });
    expect(badStatus.status).toBe(400);
    expect(fieldsOf(badStatus)).toContain('status');
    const unknown = await recover({ since: at(0).toISOString(), from: 'x' });
    expect(unknown.status).toBe(400);
    expect(fieldsOf(unknown)).toContain('from');
    // Nothing moved.
    expect(await ctx.db.prisma.outboundQueueItem.count({ where: { status: 'failed' } })).toBe(1);
  });

  it('resends a completed item with the same webhook-id; pending and processing items stay a 409', async () => {
    const [completed, pending] = await seed([
      ['completed', 1],
      ['pending', 1],
    ]);
    const resent = await ctx.api.request('POST', `/api/v1/outbound-queue/${completed}/retry`);
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({
      id: completed,
      status: 'pending',
      attempts: 0,
      completedAt: null,
      messageId: `msg_recover_${backend}_0`,
    });
    expect((await ctx.api.request('POST', `/api/v1/outbound-queue/${completed}/retry`)).status).toBe(409); // now pending
    expect((await ctx.api.request('POST', `/api/v1/outbound-queue/${pending}/retry`)).status).toBe(409);
  });
});
