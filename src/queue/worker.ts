import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client';
import type { EventHub } from '../events/hub';
import type { SecretBox } from '../webhooks/secret-box';
import { deliver, eventBody, signatureHeaders } from './delivery';
import { QUEUE_CHANNEL } from './queue.service';
import { nextStep, type AttemptOutcome } from './schedule';

export type WorkerOptions = {
  prisma: PrismaClient;
  secrets: SecretBox;
  logger: Logger;
  events?: EventHub;
  /** With PostgreSQL: LISTEN for work enqueued by other replicas. */
  databaseUrl?: string | undefined;
  /** Injected in tests to walk through the schedule without sleeping. */
  clock?: () => Date;
  batchSize?: number;
  pollIntervalMs?: number;
  /** A claimed item whose worker died is reclaimed after this. */
  leaseMs?: number;
  timeoutMs?: number;
  /** Counts attempts by outcome (Prometheus). */
  onAttempt?: (outcome: 'completed' | 'retry' | 'failed') => void;
};

type ClaimedItem = {
  id: number;
  attempts: number;
  max_attempts: number;
  schedule_started_at: Date;
  message_id: string;
  payload: Record<string, unknown>;
  webhook_config_id: number | null;
};

export type Worker = {
  pollIntervalMs: number;
  /** When the loop last ran (epoch ms); /ready reports a worker that stopped beating. */
  lastActiveAt(): number | undefined;
  start(): void;
  stop(): Promise<void>;
  /** Claims and delivers one batch of due items; returns how many it handled. */
  runOnce(): Promise<number>;
};

/**
 * Delivers queued webhooks. Any number of workers (threads of one process or replicas on one
 * PostgreSQL) share the queue: due items are claimed with FOR UPDATE SKIP LOCKED under a lease,
 * and an attempt's result is written only while the lease is still this worker's.
 */
export function createWorker(options: WorkerOptions): Worker {
  const { prisma, secrets, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const batchSize = options.batchSize ?? 20;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const leaseMs = options.leaseMs ?? 60_000;

  let running = false;
  let lastActiveAt: number | undefined;
  let loop: Promise<void> | undefined;
  // A wake-up during a batch must not be lost: it is remembered and the next wait is skipped.
  let signalled = false;
  let stopWaiting: (() => void) | undefined;
  const wake = () => {
    signalled = true;
    stopWaiting?.();
  };
  let unsubscribe: (() => void) | undefined;
  let listener: Client | undefined;

  async function claim(): Promise<{ token: string; items: ClaimedItem[] }> {
    const token = randomUUID();
    const now = clock();
    const items = await prisma.$queryRawUnsafe<ClaimedItem[]>(
      `UPDATE outbound_queue_items AS q
          SET status = 'processing', lease_token = $2, lease_expires_at = $3::timestamptz,
              attempts = q.attempts + 1, updated_at = $1::timestamptz
         FROM (SELECT id FROM outbound_queue_items
                WHERE (status = 'pending' AND next_attempt_at <= $1::timestamptz)
                   OR (status = 'processing' AND lease_expires_at < $1::timestamptz)
                ORDER BY next_attempt_at, id
                LIMIT $4
                FOR UPDATE SKIP LOCKED) AS due
        WHERE q.id = due.id
        RETURNING q.id, q.attempts, q.max_attempts, q.schedule_started_at, q.message_id, q.payload, q.webhook_config_id`,
      now,
      token,
      new Date(now.getTime() + leaseMs),
      batchSize,
    );
    return { token, items };
  }

  async function attempt(item: ClaimedItem, token: string, configs: Map<number, { url: string; secret: string; active: boolean }>) {
    const config = item.webhook_config_id != null ? configs.get(item.webhook_config_id) : undefined;
    let outcome: AttemptOutcome;
    if (!config) outcome = { ok: false, statusCode: 410, error: 'webhook configuration removed' };
    else if (!config.active) outcome = { ok: false, statusCode: 410, error: 'webhook configuration disabled' };
    else {
      const body = eventBody(item.payload);
      const headers = signatureHeaders(config.secret, item.message_id, Math.floor(clock().getTime() / 1000), body);
      outcome = await deliver(config.url, body, headers, { timeoutMs: options.timeoutMs, now: clock });
    }
    const now = clock();
    const step = nextStep(
      { attempts: item.attempts, maxAttempts: item.max_attempts, scheduleStartedAt: new Date(item.schedule_started_at) },
      outcome,
      now,
    );
    const { count } = await prisma.outboundQueueItem.updateMany({
      where: { id: item.id, leaseToken: token, status: 'processing' },
      data: {
        status: step.status,
        leaseToken: null,
        leaseExpiresAt: null,
        updatedAt: now,
        lastStatusCode: outcome.statusCode ?? null,
        lastError: outcome.ok ? null : step.status === 'failed' ? step.reason : outcome.error,
        ...(step.status === 'completed' ? { completedAt: now } : {}),
        ...(step.status === 'pending' ? { nextAttemptAt: step.nextAttemptAt } : {}),
      },
    });
    if (count > 0) options.onAttempt?.(step.status === 'pending' ? 'retry' : step.status);
    if (count === 0) logger.warn({ item: item.id }, 'delivery finished after its lease was taken over; result dropped');
    else logger.debug({ item: item.id, status: step.status, attempt: item.attempts }, 'webhook attempt');
  }

  async function runOnce(): Promise<number> {
    const { token, items } = await claim();
    if (items.length === 0) return 0;
    const ids = [...new Set(items.flatMap((i) => (i.webhook_config_id != null ? [i.webhook_config_id] : [])))];
    const rows = await prisma.webhookConfig.findMany({ where: { id: { in: ids } } });
    const configs = new Map(rows.map((r) => [r.id, { url: r.url, secret: secrets.decrypt(r.secretEncrypted), active: r.active }]));
    await Promise.all(items.map((item) => attempt(item, token, configs)));
    return items.length;
  }

  async function listen(databaseUrl: string): Promise<void> {
    listener = new Client({ connectionString: databaseUrl });
    listener.on('notification', wake);
    listener.on('error', (error) => logger.warn({ err: error }, 'queue LISTEN connection lost; polling until restart'));
    await listener.connect();
    await listener.query(`LISTEN ${QUEUE_CHANNEL}`);
  }

  async function run(): Promise<void> {
    while (running) {
      lastActiveAt = Date.now();
      signalled = false;
      let handled = 0;
      try {
        handled = await runOnce();
      } catch (error) {
        logger.error({ err: error }, 'queue worker iteration failed');
      }
      if (!running) break;
      if (handled < batchSize && !signalled) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollIntervalMs);
          stopWaiting = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        stopWaiting = undefined;
      }
    }
  }

  return {
    runOnce,
    pollIntervalMs,
    lastActiveAt: () => (running ? lastActiveAt : undefined),
    start() {
      if (running) return;
      running = true;
      unsubscribe = options.events?.onQueueWork(wake);
      if (options.databaseUrl) {
        listen(options.databaseUrl).catch((error) => logger.warn({ err: error }, 'could not LISTEN for queue work; polling'));
      }
      loop = run();
    },
    async stop() {
      running = false;
      stopWaiting?.();
      unsubscribe?.();
      await loop;
      await listener?.end().catch(() => undefined);
    },
  };
}
