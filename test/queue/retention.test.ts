import pino from 'pino';
import { startRetentionRuns, type PruneResult } from '../../src/queue/retention';
import { createWorker, type WorkerOptions } from '../../src/queue/worker';
import { backends } from '../support/database';
import { useApiFixture } from '../support/http';
import type { QueueStatus } from '../../src/generated/prisma/enums';

const logger = pino({ level: 'silent' });
const DAY = 86_400_000;

describe.each(backends)('retention on %s', (backend) => {
  const ctx = useApiFixture(backend);
  // The worker's clock stands a year on: every age below is measured from it, not from the machine's.
  const now = new Date(Date.now() + 365 * DAY);
  const daysAgo = (days: number) => new Date(now.getTime() - days * DAY);
  const worker = (retention: WorkerOptions['retention']) =>
    createWorker({ database: ctx.db.prisma, secrets: ctx.api.secrets, logger, clock: () => now, retention });

  let seq = 0;
  async function item(status: QueueStatus, ageDays: number, failureId: number | null = null, attempts = 0): Promise<number> {
    const at = daysAgo(ageDays);
    const row = await ctx.db.prisma.outboundQueueItem.create({
      data: {
        status,
        createdAt: at,
        updatedAt: at,
        nextAttemptAt: at,
        completedAt: status === 'completed' ? at : null,
        leaseToken: status === 'processing' ? 'held' : null,
        leaseExpiresAt: status === 'processing' ? daysAgo(-1) : null,
        messageId: `msg_retention_${backend}_${seq++}`,
        payload: { event: 'sync_failure' },
        failureId,
      },
    });
    for (let a = 1; a <= attempts; a++) {
      await ctx.db.prisma.deliveryAttempt.create({
        data: { itemId: row.id, attempt: a, startedAt: at, durationMs: 5, outcome: a === attempts ? 'success' : 'http_error' },
      });
    }
    return row.id;
  }
  async function failure(status: 'open' | 'resolved', ageDays: number): Promise<number> {
    const at = daysAgo(ageDays);
    const row = await ctx.db.prisma.syncFailure.create({
      data: {
        entityType: 'product',
        externalId: `SKU-${seq++}`,
        source: 'erp',
        errorMessage: 'x',
        status,
        createdAt: daysAgo(ageDays + 1),
        resolvedAt: status === 'resolved' ? at : null,
      },
    });
    return row.id;
  }

  beforeEach(async () => {
    await ctx.db.prisma.outboundQueueItem.deleteMany();
    await ctx.db.prisma.syncFailure.deleteMany();
  });

  it('prunes old completed items with their attempts and old resolved failures, and nothing else', async () => {
    const oldResolved = await failure('resolved', 100);
    const kept = {
      recentResolved: await failure('resolved', 10),
      ancientOpen: await failure('open', 400),
    };
    const prunedItems = [
      await item('completed', 40, null, 2),
      await item('completed', 31, null, 1),
      await item('completed', 200, oldResolved, 1),
    ];
    const keptItems = [
      await item('completed', 29, null, 1),
      await item('failed', 300, oldResolved, 6), // its failure goes, it stays (failureId cleared)
      await item('pending', 300),
      await item('processing', 300, null, 1),
    ];

    const result = await worker({ completedDays: 30, resolvedDays: 90, batchSize: 2 }).prune();
    expect(result).toEqual({ completedItems: 3, resolvedFailures: 1, finished: true });

    const items = await ctx.db.prisma.outboundQueueItem.findMany({ orderBy: { id: 'asc' } });
    expect(items.map((i) => i.id)).toEqual(keptItems);
    expect(items.map((i) => i.status)).toEqual(['completed', 'failed', 'pending', 'processing']);
    expect(items[1]!.failureId).toBeNull();
    expect(await ctx.db.prisma.deliveryAttempt.count({ where: { itemId: { in: prunedItems } } })).toBe(0);
    expect(await ctx.db.prisma.deliveryAttempt.count()).toBe(1 + 6 + 1);
    const failures = await ctx.db.prisma.syncFailure.findMany({ orderBy: { id: 'asc' } });
    expect(failures.map((f) => f.id)).toEqual([kept.recentResolved, kept.ancientOpen]);

    // A second run finds nothing more.
    expect(await worker({ completedDays: 30, resolvedDays: 90 }).prune()).toEqual({
      completedItems: 0,
      resolvedFailures: 0,
      finished: true,
    });
  });

  it('keeps everything with 0 days, and stops at its time limit with the rest left for the next run', async () => {
    for (let i = 0; i < 5; i++) await item('completed', 60);
    await failure('resolved', 400);
    expect(await worker({ completedDays: 0, resolvedDays: 0 }).prune()).toEqual({ completedItems: 0, resolvedFailures: 0, finished: true });

    const cut = await worker({ completedDays: 30, resolvedDays: 90, batchSize: 2, timeLimitMs: 0 }).prune();
    expect(cut).toEqual({ completedItems: 2, resolvedFailures: 0, finished: false });
    const rest = await worker({ completedDays: 30, resolvedDays: 90, batchSize: 2 }).prune();
    expect(rest).toEqual({ completedItems: 3, resolvedFailures: 1, finished: true });
  });

  it('reports row counts and sizes of the retained tables in /metrics', async () => {
    await item('completed', 1, null, 3);
    const res = await ctx.api.request('GET', '/metrics');
    expect(res.status).toBe(200);
    for (const table of ['outbound_queue_items', 'delivery_attempts', 'sync_failures']) {
      expect(res.text).toMatch(new RegExp(`^sync_gateway_table_rows\\{table="${table}"\\} \\d+`, 'm'));
      const bytes = new RegExp(`^sync_gateway_table_bytes\\{table="${table}"\\} (\\d+)`, 'm').exec(res.text);
      expect(Number(bytes?.[1])).toBeGreaterThan(0);
    }
    // Counted exactly until PostgreSQL has analyzed the table (a fresh test database has not).
    expect(res.text).toMatch(/^sync_gateway_table_rows\{table="delivery_attempts"\} 3$/m);
  });
});

describe('retention runs in the background', () => {
  // The schedule on jest's clock: what runs when is asserted exactly, however busy the machine.
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('runs again after a second while a run was cut short, then waits the interval; a failed run is retried', async () => {
    const results: PruneResult[] = [
      { completedItems: 500, resolvedFailures: 0, finished: false },
      { completedItems: 10, resolvedFailures: 2, finished: true },
    ];
    const calls: number[] = [];
    let failNext = true;
    const runs = startRetentionRuns(
      async () => {
        calls.push(Date.now());
        if (failNext) {
          failNext = false;
          throw new Error('database away');
        }
        return results.shift() ?? { completedItems: 0, resolvedFailures: 0, finished: true };
      },
      { logger, firstDelayMs: 0, intervalMs: 50 },
    );
    await jest.advanceTimersByTimeAsync(1_200);
    // failed → the interval; cut short → a second; finished → the interval, and so on.
    expect(calls).toEqual([0, 50, 1_050, 1_100, 1_150, 1_200]);
    await runs.stop();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(calls).toHaveLength(6); // stopped
  });
});
