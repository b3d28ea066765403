import { EventEmitter } from 'node:events';
import pino from 'pino';
import { ASLEEP, BUSY, createWakeState, signalWork, wakeGate, WORK } from '../../src/queue/wake-gate';
import { createWorker } from '../../src/queue/worker';
import type { QueueDatabase } from '../../src/queue/sql/queue-database';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { backends, clearDeliveries } from '../support/database';
import { useApiFixture } from '../support/http';
import { startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait-for';

const logger = pino({ level: 'silent' });

describe('the wake gate between the main thread and the worker thread', () => {
  const fresh = () => {
    const state = new Int32Array(createWakeState());
    return { state, gate: wakeGate(state) };
  };

  it('posts nothing while the worker claims, and makes it claim again instead of sleeping', () => {
    const { state, gate } = fresh();
    gate.takeWork();
    expect(signalWork(state)).toBe(false); // a report during the claim
    expect(gate.mayWait()).toBe(false); // its items may postdate the claim's snapshot
    gate.takeWork();
    expect(Atomics.load(state, 0)).toBe(BUSY);
    expect(gate.mayWait()).toBe(true);
  });

  it('posts exactly once to a sleeping worker, however many reports follow', () => {
    const { state, gate } = fresh();
    gate.takeWork();
    expect(gate.mayWait()).toBe(true);
    expect(Atomics.load(state, 0)).toBe(ASLEEP);
    expect(signalWork(state)).toBe(true);
    expect(signalWork(state)).toBe(false);
    expect(Atomics.load(state, 0)).toBe(WORK);
    gate.takeWork(); // woken: the claim sees both reports
    expect(gate.mayWait()).toBe(true);
  });

  it('lets a worker woken by its timer claim without waiting for the message meant for its sleep', () => {
    const { state, gate } = fresh();
    gate.takeWork();
    gate.mayWait();
    gate.takeWork(); // the poll interval ran out first
    expect(signalWork(state)).toBe(false); // awake: that claim or the next check sees it
    expect(gate.mayWait()).toBe(false);
  });
});

describe.each(backends)('a worker behind the wake gate on %s', (backend) => {
  const ctx = useApiFixture(backend);
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 200 }));
  });
  afterAll(() => receiver.close());
  beforeEach(async () => {
    await clearDeliveries(ctx.db.prisma);
    receiver.requests.length = 0;
    await createWebhook(ctx.db.prisma, ctx.api.secrets, {
      url: receiver.url,
      entityType: 'product',
      direction: 'to_webshop',
      secret: 'receiver-shared-secret-123',
    });
  });

  const report = () =>
    ctx.api.request('POST', '/api/v1/failures', {
      body: { entity_type: 'product', external_id: 'SKU-1', source: 'erp', error_message: 'Unknown tax class' },
    });

  /**
   * The worker as its thread runs it: woken only through the gate, with a message (here an
   * emitter, a macrotask later) only when the gate says it sleeps; an hour between polls, so
   * only a wake-up can deliver within the test's bounds. `duringEmptyClaim` runs after the
   * first empty claim has read its snapshot and before the worker sees its result.
   */
  async function deliveredWithin(
    duringEmptyClaim: (() => Promise<void>) | undefined,
    act: (state: Int32Array) => Promise<void>,
  ): Promise<number> {
    const state = new Int32Array(createWakeState());
    const messages = new EventEmitter();
    let posted = 0;
    const unsubscribe = ctx.api.events.onQueueWork(() => {
      if (signalWork(state)) setImmediate(() => (posted++, messages.emit('wake')));
    });
    let hook = duringEmptyClaim;
    const database: QueueDatabase = {
      async $queryRaw<T>(strings: TemplateStringsArray, ...values: unknown[]): Promise<T> {
        const rows = await ctx.db.prisma.$queryRaw<T>(strings, ...values);
        if (hook && strings.join('').includes('SKIP LOCKED') && Array.isArray(rows) && rows.length === 0) {
          const run = hook;
          hook = undefined;
          await run();
        }
        return rows;
      },
    };
    const worker = createWorker({
      database,
      secrets: ctx.api.secrets,
      logger,
      pollIntervalMs: 3_600_000,
      wakeGate: wakeGate(state),
      events: {
        onQueueWork(listener) {
          messages.on('wake', listener);
          return () => messages.off('wake', listener);
        },
      },
    });
    worker.start();
    try {
      await act(state);
      await waitFor(() => receiver.requests.length === 1, 60_000, 'the delivery');
      return posted;
    } finally {
      await worker.stop();
      unsubscribe();
    }
  }

  it('delivers a report committed between an empty claim and the worker going to sleep, without a message', async () => {
    let reported = false;
    const posted = await deliveredWithin(
      async () => {
        expect((await report()).status).toBe(201);
        reported = true;
      },
      () => waitFor(() => reported, 60_000, 'the report during the empty claim'),
    );
    expect(posted).toBe(0);
  });

  it('wakes a sleeping worker with one message', async () => {
    const posted = await deliveredWithin(undefined, async (state) => {
      await waitFor(() => Atomics.load(state, 0) === ASLEEP, 60_000, 'the worker asleep until its next poll');
      expect((await report()).status).toBe(201);
    });
    expect(posted).toBe(1);
  });
});
