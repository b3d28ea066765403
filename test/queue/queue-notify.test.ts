import { Client, Pool } from 'pg';
import pino from 'pino';
import { listenForQueueWork, type QueueListener } from '../../src/queue/queue-listener';
import { notifyQueueWork, QUEUE_NOTIFIER_ID, QUEUE_NOTIFY_SPACING_MS } from '../../src/queue/queue-notify';
import { QUEUE_CHANNEL } from '../../src/queue/queue.service';
import { backends, createPostgresDatabase } from '../support/database';
import { waitFor } from '../support/wait-for';

/**
 * The wake-up for other replicas' workers after a report (ADR 0033, "Failure reports"): a NOTIFY
 * of its own, one in flight at a time, carrying the process's id, which the process's own
 * listener ignores. On each backend: a database of its own on its server.
 */

describe.each(backends)('queue work notifications on %s', (backend) => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let pool: Pool;
  let listener: Client;
  const received: Array<string | undefined> = [];

  beforeAll(async () => {
    database = await createPostgresDatabase(backend);
    pool = new Pool({ connectionString: database.url, max: 4 });
    listener = new Client({ connectionString: database.url });
    await listener.connect();
    listener.on('notification', (n) => received.push(n.payload));
    await listener.query(`LISTEN ${QUEUE_CHANNEL}`);
  });
  afterAll(async () => {
    await listener?.end();
    await pool?.end();
    await database?.drop();
  });
  beforeEach(() => (received.length = 0));

  it('coalesces a burst into one NOTIFY in flight and one after it, with the process id', async () => {
    for (let i = 0; i < 50; i++) notifyQueueWork(pool);
    await waitFor(() => received.length >= 2, 10_000, 'two notifications');
    // Nothing else is on its way: a third would have been sent by now.
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toEqual([QUEUE_NOTIFIER_ID, QUEUE_NOTIFIER_ID]);

    received.length = 0;
    notifyQueueWork(pool);
    await waitFor(() => received.length >= 1, 10_000, 'a later notification');
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toEqual([QUEUE_NOTIFIER_ID]);
  });

  it('spaces out the NOTIFYs of a steady stream of reports', async () => {
    const started = Date.now();
    while (Date.now() - started < 300) {
      notifyQueueWork(pool);
      await new Promise((r) => setTimeout(r, 1));
    }
    const elapsed = Date.now() - started;
    await new Promise((r) => setTimeout(r, 300));
    // One in flight at a time alone would send one per round trip (about a millisecond here).
    expect(received.length).toBeGreaterThanOrEqual(2);
    expect(received.length).toBeLessThanOrEqual(Math.ceil(elapsed / QUEUE_NOTIFY_SPACING_MS) + 2);
  });

  it("wakes a listener on other processes' notifications, not on its own", async () => {
    let wakeUps = 0;
    let queueListener: QueueListener | undefined;
    try {
      queueListener = listenForQueueWork(database.url, {
        logger: pino({ level: 'silent' }),
        onWork: () => wakeUps++,
        ownPayload: QUEUE_NOTIFIER_ID,
      });
      await waitFor(() => queueListener!.listening() && wakeUps === 1, 10_000, 'LISTEN'); // it wakes once when it starts listening
      notifyQueueWork(pool);
      await waitFor(() => received.length >= 1, 10_000, 'own notification');
      await pool.query('SELECT pg_notify($1, $2)', [QUEUE_CHANNEL, 'another-replica']);
      await waitFor(() => received.length >= 2, 10_000, "another replica's notification");
      await waitFor(() => wakeUps === 2, 10_000, 'wake-up');
      await pool.query(`NOTIFY ${QUEUE_CHANNEL}`); // the recover mutation's, without payload
      await waitFor(() => wakeUps === 3, 10_000, 'wake-up without payload');
      await new Promise((r) => setTimeout(r, 300));
      expect(wakeUps).toBe(3);
    } finally {
      await queueListener?.close();
    }
  });
});
