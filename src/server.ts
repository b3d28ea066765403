import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants as osConstants } from 'node:os';
import type { Logger } from 'pino';
import { createAccountLimiters } from './accounts/account.service';
import { createMailer } from './accounts/mailer';
import { createRateLimiters } from './rate-limits/limiters';
import { createMetrics } from './ops/metrics';
import { addStoreSizeGauges } from './ops/store-metrics';
import { createReadiness } from './ops/readiness';
import type { AppConfig } from './config';
import { openStore, type Store } from './db/store';
import { importPgliteStore } from './backups/pglite-import';
import { preflight } from './config/preflight';
import { countActiveTokens } from './auth/token.service';
import { startupFields, STARTUP_MESSAGE } from './startup-banner';
import { createWorker } from './queue/worker';
import { queueDatabaseOverPg } from './queue/sql/queue-database';
import { spawnWorkerThread, type PendingWorkerThread } from './queue/worker-thread';
import { changeBatchHooks, createChangeBatches } from './queue/change-batches';
import { loadServingModules, type ServingModules } from './serving-modules';
import { setWebhookNetworks } from './deliveries/network-policy';
import { createSecretBox, loadEncryptionKey } from './deliveries/secret-box';
import { closeRedis, createRedisClient, redisHealth } from './redis/redis-client';
import { startPendingCountCompaction } from './changes/pending-counts';
import { listenForRevocations } from './auth/revocation-notices';

export type RunningServer = { url: string; server: Server; db: Store; close(): Promise<void> };

/**
 * Checks what a first start gets wrong, opens the database, applies pending migrations and listens.
 * The order is for a fast restart (issue 29, ADR 0042): the webhook worker's thread is spawned
 * first and loads its modules on the other core; the modules that serve load while the embedded
 * cluster starts; the worker gets the store before the app is built, so that its first claim,
 * which /ready waits for, is made by the time the server listens.
 */
export async function startServer(config: AppConfig, logger: Logger): Promise<RunningServer> {
  const worker: PendingWorkerThread | undefined = config.workerEnabled ? spawnWorkerThread({ config, logger }) : undefined;
  let modules: ServingModules | undefined;
  let db: Store;
  try {
    db = await prepareStore(config, logger, {
      listen: true,
      poolSize: config.databasePool.size,
      whileStarting: async () => void (modules = await loadServingModules()),
    });
  } catch (error) {
    await worker?.stop();
    throw error;
  }
  try {
    const { createApp, createEventHub, attachGraphqlWs } = modules ?? (await loadServingModules());
    const events = createEventHub({ redisUrl: config.redisUrl, logger });
    const encryptionKey = await loadEncryptionKey(config);
    const secrets = createSecretBox(encryptionKey);
    const metrics = createMetrics(db.prisma);
    // The worker's own pool, on whichever store this is; it claims while the app is built.
    worker?.start({ databaseUrl: db.url, encryptionKey, events, onAttempt: metrics.deliveryAttempt });
    const limiterRedis = config.redisUrl ? createRedisClient(config.redisUrl, 'rate-limit', logger) : undefined;
    const rateLimiters = createRateLimiters(config.rateLimit, limiterRedis);
    const accounts = {
      mailer: createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger }),
      limiters: createAccountLimiters(limiterRedis),
      registration: config.registration,
      sessionTtlMs: config.sessionTtlMs,
    };
    if (db.clusterDir) addStoreSizeGauges(metrics.registry, db.clusterDir);
    const redisChecks = [limiterRedis ? redisHealth([limiterRedis]) : undefined, events.redis].filter((c) => c !== undefined);
    const readiness = createReadiness({
      prisma: db.prisma,
      worker,
      redis: redisChecks.length > 0 ? { status: () => redisChecks.map((c) => c.status()).find((s) => s !== 'ok') ?? 'ok' } : undefined,
    });
    const app = createApp({ config, db, logger, events, secrets, rateLimiters, accounts, metrics, readiness });
    // Optionally, metrics on a port of their own without a token (keep it off the public network).
    const metricsServer =
      config.metricsPort !== undefined
        ? createServer(async (_req, res) => {
            res.setHeader('content-type', metrics.registry.contentType);
            res.end(await metrics.registry.metrics());
          })
        : undefined;
    if (metricsServer) await new Promise<void>((resolve) => metricsServer.listen(config.metricsPort, config.host, resolve));
    const server = createServer(app);
    server.keepAliveTimeout = 65_000; // longer than common proxies' idle timeout
    const websockets = attachGraphqlWs(server, app, {
      prisma: db.prisma,
      lastUsedResolutionMs: config.tokenLastUsedResolutionMs,
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    // Keeps each pending count a sum over a few rows (ADR 0030); safe on every replica at once.
    const compaction = startPendingCountCompaction(db.prisma, { logger });
    // The CLI revokes tokens in the database directly: this process hears of it (ADR 0042).
    const revocations = listenForRevocations(db.url, { logger, onRevoked: () => events.publishRevocation() });
    const [activeApiTokens, adminAccounts] = await Promise.all([countActiveTokens(db.prisma), db.prisma.adminAccount.count()]);
    logger.info(
      startupFields({
        url,
        backend: db.backend,
        dataDir: config.dataDir,
        location: db.location,
        worker: Boolean(worker),
        activeApiTokens,
        adminAccounts,
      }),
      STARTUP_MESSAGE,
    );

    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        // Everything but the store gets SHUTDOWN_GRACE_MS in all (in-flight requests finish or are
        // cut at it; deliveries in flight are released); the store closes last, whatever hung.
        const deadline = Date.now() + config.shutdownGraceMs;
        const step = (name: string, work: () => Promise<unknown> | undefined) => withinDeadline(name, work, deadline, logger);
        await step('websockets', () => websockets.close());
        metricsServer?.close();
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), Math.max(0, deadline - Date.now()));
        await drained;
        clearTimeout(timer);
        await step('worker', () => worker?.stop());
        await step('pending-count compaction', () => compaction.stop());
        await step('revocation listener', () => revocations.close());
        await step('events', () => events.close());
        if (limiterRedis) await closeRedis(limiterRedis);
        await db.close();
      })());
    return { url, server, db, close };
  } catch (error) {
    await worker?.stop();
    await db.close();
    throw error;
  }
}

/** Runs only the webhook worker (for replicas on PostgreSQL that do not serve HTTP). */
export async function startWorker(config: AppConfig, logger: Logger): Promise<{ close(): Promise<void> }> {
  const db = await prepareStore(config, logger, { listen: false, poolSize: config.databasePool.workerSize });
  const secrets = createSecretBox(await loadEncryptionKey(config));
  // Operational events reach the other replicas' subscribers through Redis (without it, nobody listens here).
  const { createEventHub } = await import('./events/hub.js');
  const events = config.redisUrl ? createEventHub({ redisUrl: config.redisUrl, logger }) : undefined;
  const worker = createWorker({
    // The statements the worker thread of `serve` runs, on this process's pool.
    database: queueDatabaseOverPg(db.sql),
    ...changeBatchHooks(createChangeBatches(db.sql, logger)),
    secrets,
    logger,
    databaseUrl: db.url,
    leaseMs: config.workerLeaseMs,
    disableAfterMs: config.webhookDisableAfterMs,
    ...(events ? { onOperationalEvents: (operational) => operational.forEach(events.publishOperational) } : {}),
    retention: config.retention,
  });
  worker.start();
  logger.info({ backend: db.backend, location: db.location }, 'sync-gateway worker running');
  return {
    async close() {
      await worker.stop();
      await events?.close();
      await db.close();
    },
  };
}

/**
 * One step of a shutdown, abandoned at the deadline (logged): a Redis or a receiver that does not
 * answer must not keep a stopping process alive.
 */
async function withinDeadline(name: string, work: () => Promise<unknown> | undefined, deadline: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()))));
  const outcome = await Promise.race([
    Promise.resolve(work()).then(
      () => 'done' as const,
      (error: unknown) => error,
    ),
    late,
  ]);
  clearTimeout(timer);
  if (outcome === 'late') logger.warn({ step: name }, 'shutdown step did not finish within SHUTDOWN_GRACE_MS; going on without it');
  else if (outcome !== 'done') logger.warn({ step: name, err: outcome }, 'shutdown step failed; going on');
}

/** Time the store gets to close after the grace: the pool, then the embedded cluster's fast shutdown. */
const STORE_STOP_MS = 15_000;

/**
 * SIGTERM/SIGINT stop the server gracefully; a second signal exits at once. The handlers are in
 * place before the start begins. On the embedded store (`startOwnsCluster`) a signal while the
 * start runs (the cluster started, the server not yet listening) waits for the start and then stops
 * what it made, instead of killing the process and leaving the cluster running; on a database
 * server nothing outlives the process, so such a signal exits at once, even while the start waits
 * for an unreachable database. Resolves once started; rejects when the start fails.
 */
export function stopOnSignals(
  starting: Promise<Pick<RunningServer, 'close'>>,
  logger: Logger,
  options: { graceMs: number; startOwnsCluster: boolean },
): Promise<void> {
  const { graceMs } = options;
  let started = false;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping || (!started && !options.startOwnsCluster)) process.exit(128 + osConstants.signals[signal]);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // The last resort: close() bounds each step, but nothing may keep a stopping process alive.
    setTimeout(() => {
      logger.error({ graceMs }, 'shutdown ran past SHUTDOWN_GRACE_MS and the time the store gets to stop; exiting');
      process.exit(1);
    }, graceMs + STORE_STOP_MS).unref();
    starting
      .then((running) => running.close())
      .then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'error while shutting down');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return starting.then(() => void (started = true));
}

/**
 * What `serve` and `worker` do before their own work: the pre-flight checks (nothing touches the
 * database before them), the webhook network lists, and the database with its migrations.
 */
async function prepareStore(
  config: AppConfig,
  logger: Logger,
  options: { listen: boolean; poolSize: number; whileStarting?: () => Promise<void> },
): Promise<Store> {
  await preflight(config, { listen: options.listen });
  setWebhookNetworks(config.webhookNetworks);
  const db = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    embeddedFsync: config.embeddedFsync,
    logger,
    pool: { ...config.databasePool, size: options.poolSize },
    importLegacyStore: importPgliteStore,
    ...(options.whileStarting ? { whileStarting: options.whileStarting } : {}),
  });
  try {
    await db.migrate();
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}
