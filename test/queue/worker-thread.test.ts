import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { createEventHub, type EventHub } from '../../src/events/hub';
import { createReadiness } from '../../src/ops/readiness';
import { spawnWorkerThread } from '../../src/queue/worker-thread';
import { openStore, type Store } from '../../src/db/store';
import { createPostgresDatabase } from '../support/database';
import { waitFor } from '../support/wait-for';

/**
 * `serve` spawns the webhook worker's thread before the store opens, so that its modules load
 * while the cluster starts (issue 29's restart). /ready must still mean what it says: the worker
 * reports "not running" until it has the store and has claimed, and only then "ok".
 */
describe('the webhook worker thread, spawned before the store opens', () => {
  const logger = pino({ level: 'silent' });
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: '/nonexistent' });
  let database: { url: string; drop(): Promise<void> };
  let store: Store;
  let events: EventHub;

  beforeAll(async () => {
    database = await createPostgresDatabase('embedded');
    store = await openStore({ databaseUrl: database.url, dataDir: '/nonexistent', logger });
    events = createEventHub();
  }, 60_000);

  afterAll(async () => {
    await events?.close();
    await store?.close();
    await database?.drop();
  });

  it('is not ready until started on the store, then ready once it has claimed', async () => {
    const worker = spawnWorkerThread({ config, logger });
    const readiness = createReadiness({ prisma: store.prisma, worker });
    try {
      // Long enough for the thread to have loaded its modules: it still claims nothing without a store.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect((await readiness()).checks.worker).toBe('not running');
      expect((await readiness()).ready).toBe(false);

      worker.start({ databaseUrl: database.url, encryptionKey: randomBytes(32), events, onAttempt: () => undefined });
      await waitFor(() => worker.lastClaimAt() !== undefined, 60_000, 'the first claim');
      expect(await readiness()).toEqual({ ready: true, checks: { database: 'ok', migrations: 'ok', worker: 'ok' } });
    } finally {
      await worker.stop();
    }
    // A stopped thread is reported as not running, not as the last claim it made.
    expect((await readiness()).checks.worker).toBe('not running');
  }, 60_000);

  it('ends without ever touching the store when the start fails before it opens', async () => {
    const worker = spawnWorkerThread({ config, logger });
    await worker.stop();
    expect(worker.lastClaimAt()).toBeUndefined();
    // Starting it afterwards is a no-op: the thread has gone.
    worker.start({ databaseUrl: database.url, encryptionKey: randomBytes(32), events, onAttempt: () => undefined });
    expect(worker.lastClaimAt()).toBeUndefined();
  }, 60_000);
});
