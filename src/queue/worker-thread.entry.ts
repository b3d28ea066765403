/**
 * The worker thread started by worker-thread.ts: a delivery worker with its own small pg pool.
 * It needs raw SQL only, so it runs without Prisma's runtime (a thread carries its own copy of
 * every module it loads). It is spawned before the store opens: its modules load at once, and the
 * pool and the worker wait for the `start` message with the store's URL.
 */
import { EventEmitter } from 'node:events';
import { parentPort, workerData } from 'node:worker_threads';
import { PatientPool, postgresPoolConfig } from '../db/postgres-pool';
import { createLogger } from '../logger';
import { setWebhookNetworks } from '../deliveries/network-policy';
import { createSecretBox } from '../deliveries/secret-box';
import { queueDatabaseOverPg } from './sql/queue-database';
import { createWorker } from './worker';
import { changeBatchHooks, createChangeBatches } from './change-batches';
import type { WorkerThreadCommand, WorkerThreadData, WorkerThreadMessage } from './worker-thread';

const port = parentPort!;
const post = (message: WorkerThreadMessage) => port.postMessage(message);

type Started = { stop(): Promise<void>; wake(): void };

/** The worker on the store `start` names; returns how to wake and stop it. */
function run(databaseUrl: string, encryptionKey: Uint8Array): Started {
  const { config, ownNotifications } = workerData as WorkerThreadData;
  const logger = createLogger(config).child({ thread: 'webhook-worker' });
  // A thread has its own copy of every module: the SSRF guard's lists must be set here too.
  setWebhookNetworks(config.webhookNetworks);
  const pool = new PatientPool(
    postgresPoolConfig(databaseUrl, { ...config.databasePool, size: config.databasePool.workerSize }, 'sync-gateway-worker'),
  );
  pool.on('error', (error) => logger.warn({ cause: error.message }, 'idle database connection lost'));
  const wakeUps = new EventEmitter();
  let firstClaimReported = false;
  const beat = () => post({ type: 'beat', lastClaimAt: worker.lastClaimAt(), lastClaimError: worker.lastClaimError() });
  /** Outcomes of the result batch being counted: one message per batch, not one per delivery. */
  let outcomes: Array<'completed' | 'retry' | 'failed'> = [];
  const countAttempt = (outcome: 'completed' | 'retry' | 'failed') => {
    if (outcomes.push(outcome) > 1) return;
    queueMicrotask(() => {
      post({ type: 'attempts', outcomes });
      outcomes = [];
    });
  };
  const changeBatches = createChangeBatches(pool, logger);
  const worker = createWorker({
    database: queueDatabaseOverPg(pool),
    ...changeBatchHooks(changeBatches),
    secrets: createSecretBox(Buffer.from(encryptionKey)),
    logger,
    databaseUrl,
    ownNotifications,
    leaseMs: config.workerLeaseMs,
    retention: config.retention,
    events: {
      onQueueWork(listener) {
        wakeUps.on('work', listener);
        return () => wakeUps.off('work', listener);
      },
    },
    onAttempt: countAttempt,
    disableAfterMs: config.webhookDisableAfterMs,
    onOperationalEvents: (events) => post({ type: 'operational', events }),
    // /ready must not wait half a second to learn that the worker works.
    onClaim: () => {
      if (!firstClaimReported) beat();
      firstClaimReported = true;
    },
  });
  const beatTimer = setInterval(beat, 500);
  worker.start();
  beat();
  return {
    wake: () => wakeUps.emit('work'),
    async stop() {
      clearInterval(beatTimer);
      await worker.stop();
      await pool.end();
    },
  };
}

let started: Started | undefined;
port.on('message', (command: WorkerThreadCommand) => {
  if (command === 'wake') started?.wake();
  else if (command === 'stop')
    // Also before `start` (the server failed to start): the thread just ends.
    void (started?.stop() ?? Promise.resolve()).then(() => port.close());
  else if (!started) {
    try {
      started = run(command.databaseUrl, command.encryptionKey);
    } catch (error) {
      post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
      process.exit(1);
    }
  }
});
