import pino from 'pino';
import { createLeaseBook } from '../../src/queue/lease-book';
import { createResultWriter } from '../../src/queue/result-writer';
import type { QueueDatabase } from '../../src/queue/sql/queue-database';
import type { AttemptResult } from '../../src/queue/sql/record-results';
import { backends } from '../support/database';
import { queueOneDelivery, useApiFixture } from '../support/http';
import { waitFor } from '../support/wait-for';

const logger = pino({ level: 'silent' });
const LEASE_MS = 10_000;

/** A connection refused, as pg reports it: what the writer takes for an outage and retries. */
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

/** The result writer on its own, with the worker's clock injected and a database that may refuse. */
describe.each(backends)('result writer on %s', (backend) => {
  const ctx = useApiFixture(backend);
  let now: Date;
  let refusals: number;
  /** The real database, refusing the next `refusals` statements. */
  const flaky: QueueDatabase = {
    $queryRaw: (query, ...values) => (refusals-- > 0 ? Promise.reject(refused()) : ctx.db.prisma.$queryRaw(query, ...values)),
  };

  const completed = (id: number, token: string): AttemptResult => ({
    id,
    lease_token: token,
    status: 'completed',
    at: now.toISOString(),
    status_code: 200,
    error: null,
    next_attempt_at: null,
    counted: true,
    attempt: 1,
    started_at: now.toISOString(),
    duration_ms: 5,
    outcome: 'success',
    http_status: 200,
    attempt_error: null,
    response_body: null,
    retry_after: null,
  });

  beforeEach(async () => {
    refusals = 0;
    await queueOneDelivery(ctx, 'R-1');
    now = new Date(Date.now() + 1_000);
  });

  const setUp = (resultRetryMs: number) => {
    const leases = createLeaseBook({ database: ctx.db.prisma, clock: () => now, leaseMs: LEASE_MS, logger });
    const told = { written: [] as number[], attempts: [] as string[], released: [] as number[] };
    const writer = createResultWriter({
      database: flaky,
      leases: {
        release(id) {
          told.released.push(id);
          leases.release(id);
        },
      },
      clock: () => now,
      disableAfterMs: 0,
      resultRetryMs,
      isRunning: () => true,
      logger,
      onWritten: (results) => told.written.push(...results.map((r) => r.id)),
      onAttempt: (outcome) => told.attempts.push(outcome),
    });
    return { leases, writer, told };
  };
  const statusOf = async (id: number) => (await ctx.db.prisma.outboundQueueItem.findUniqueOrThrow({ where: { id } })).status;

  it('writes a queued result while its lease is the worker’s, releases the lease and says so', async () => {
    const { leases, writer, told } = setUp(10_000);
    const { token, items } = await leases.claim(10);
    writer.queue(completed(items[0]!.id, token));
    await writer.drained();
    expect(await statusOf(items[0]!.id)).toBe('completed');
    expect(told).toEqual({ written: [items[0]!.id], attempts: ['completed'], released: [items[0]!.id] });
  });

  it('keeps a result through a brief outage and writes it once the database answers', async () => {
    const { leases, writer, told } = setUp(10_000);
    const { token, items } = await leases.claim(10);
    refusals = 2;
    writer.queue(completed(items[0]!.id, token));
    await writer.drained();
    expect(refusals).toBeLessThan(0); // both refusals were met, then the write went through
    expect(await statusOf(items[0]!.id)).toBe('completed');
    expect(told.written).toEqual([items[0]!.id]);
  });

  it('drops the result after resultRetryMs of outage and lets the lease go: the item is delivered again, not lost', async () => {
    const { leases, writer, told } = setUp(300);
    const { token, items } = await leases.claim(10);
    refusals = 1_000;
    writer.queue(completed(items[0]!.id, token));
    await writer.drained();
    // It tried again within the window (the first retry waits 200 ms) before it gave up.
    expect(1_000 - refusals).toBeGreaterThanOrEqual(2);
    refusals = 0;
    expect(told.written).toEqual([]);
    expect(told.released).toEqual([items[0]!.id]);
    expect(await statusOf(items[0]!.id)).toBe('processing');
    // Its lease runs out by the clock and, released, it is claimed again.
    now = new Date(now.getTime() + 2 * LEASE_MS);
    await waitFor(async () => (await leases.claim(10)).items.length === 1, 30_000, 'claimed again');
  });
});
