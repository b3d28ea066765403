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

  it('sends the NOTIFYs with the process id', async () => {
    for (let i = 0; i < 50; i++) notifyQueueWork(pool);
    await waitFor(() => received.length >= 2, 30_000, 'two notifications');
    // A later NOTIFY of another sender: the burst's arrive before it (how many is the test below's).
    await pool.query('SELECT pg_notify($1, $2)', [QUEUE_CHANNEL, 'marker']);
    await waitFor(() => received.includes('marker'), 30_000, 'the marker');
    expect(received).toEqual([QUEUE_NOTIFIER_ID, QUEUE_NOTIFIER_ID, 'marker']);
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
      await waitFor(() => queueListener!.listening() && wakeUps === 1, 30_000, 'LISTEN'); // it wakes once when it starts listening
      // Its own and another replica's, committed together: they reach the listener together, in this
      // order, so that when the second has woken it the first has been heard (and must not have).
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_notify($1, $2)', [QUEUE_CHANNEL, QUEUE_NOTIFIER_ID]);
        await client.query('SELECT pg_notify($1, $2)', [QUEUE_CHANNEL, 'another-replica']);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      await waitFor(() => wakeUps >= 2, 30_000, "another replica's wake-up");
      expect(wakeUps).toBe(2);
      await pool.query(`NOTIFY ${QUEUE_CHANNEL}`); // the recover mutation's, without payload
      await waitFor(() => wakeUps >= 3, 30_000, 'wake-up without payload');
      expect(wakeUps).toBe(3);
    } finally {
      await queueListener?.close();
    }
  });
});

/** The NOTIFYs' schedule on jest's clock, over a pool that records them: exact, however busy the machine. */
describe('queue work notifications, in time', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  /** A pool whose NOTIFYs answer at once, recording when each was sent. */
  const recordingPool = () => {
    const sent: number[] = [];
    const pool = { query: () => (sent.push(Date.now()), Promise.resolve({ rows: [] })) } as unknown as Pool;
    return { pool, sent };
  };

  it('coalesces a burst into one NOTIFY in flight and one after it; one more for a later report', async () => {
    const { pool: burst, sent } = recordingPool();
    for (let i = 0; i < 50; i++) notifyQueueWork(burst);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(sent).toEqual([1_000_000, 1_000_000 + QUEUE_NOTIFY_SPACING_MS]);
    notifyQueueWork(burst);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(sent).toHaveLength(3);
  });

  it('spaces out the NOTIFYs of a steady stream of reports', async () => {
    const { pool: steady, sent } = recordingPool();
    // A report every millisecond for 300 ms: one in flight at a time alone would send one each.
    for (let ms = 0; ms < 300; ms++) {
      notifyQueueWork(steady);
      await jest.advanceTimersByTimeAsync(1);
    }
    await jest.advanceTimersByTimeAsync(1_000);
    const gaps = sent.slice(1).map((at, i) => at - sent[i]!);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent.length).toBeLessThanOrEqual(300 / QUEUE_NOTIFY_SPACING_MS + 2);
    expect(gaps.every((gap) => gap >= QUEUE_NOTIFY_SPACING_MS)).toBe(true);
  });
});
