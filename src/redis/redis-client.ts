import Redis, { type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/** The longest a Redis command may take before its caller falls back (memory limiter, local events). */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

/** Reconnects in the background: 100 ms doubling to 5 s, forever (Redis coming back is the normal case). */
export const redisReconnectDelay = (attempt: number): number => Math.min(100 * 2 ** Math.max(0, attempt - 1), 5_000);

export type RedisRole = 'rate-limit' | 'events-publish' | 'events-subscribe';

export type RedisHealth = {
  /** 'ok', or 'degraded: …' while any client is not connected (the service still serves). */
  status(): string;
};

/**
 * A Redis client that costs milliseconds, not seconds, when Redis is down: no offline queue (a
 * command fails at once unless connected), a short command timeout for a half-open connection,
 * reconnection in the background. One log line when it goes away and one when it is back.
 *
 * The subscriber is the exception: its SUBSCRIBE commands are what must happen after a reconnect,
 * and nothing waits on them, so it keeps ioredis' queue (and resubscribes on its own).
 */
export function createRedisClient(url: string, role: RedisRole, logger: Logger): Redis {
  const subscriber = role === 'events-subscribe';
  const options: RedisOptions = {
    connectionName: `sync-gateway:${role}`,
    connectTimeout: 2_000,
    retryStrategy: redisReconnectDelay,
    enableOfflineQueue: subscriber,
    maxRetriesPerRequest: subscriber ? null : 0,
    // Pub/sub connections cannot run arbitrary commands; the timeout guards request paths.
    ...(subscriber ? {} : { commandTimeout: REDIS_COMMAND_TIMEOUT_MS }),
    lazyConnect: false,
  };
  const client = new Redis(url, options);
  if (!subscriber) reconnectOnCommandTimeout(client, role, logger);
  trackOutages(client, url, role, logger);
  return client;
}

/** Per Redis URL: which of this process's clients are down, and since when (one line per outage, not per client). */
const outages = new Map<string, { clients: Set<RedisRole>; since: number }>();

function trackOutages(client: Redis, url: string, role: RedisRole, logger: Logger): void {
  let closing = false;
  const originalQuit = client.quit.bind(client);
  client.quit = ((...args: Parameters<Redis['quit']>) => {
    closing = true; // shutting down is not an outage
    return originalQuit(...args);
  }) as Redis['quit'];
  const wentDown = (cause: string) => {
    if (closing) return;
    let outage = outages.get(url);
    if (outage?.clients.has(role)) return;
    if (!outage) {
      outage = { clients: new Set(), since: Date.now() };
      outages.set(url, outage);
      logger.warn({ redis: role, cause }, 'Redis unreachable; rate limits and live events fall back to this replica until it returns');
    }
    outage.clients.add(role);
  };
  // ioredis emits an error for every failed reconnect; only the first of an outage counts.
  client.on('error', (error: Error) => wentDown(error.message));
  client.on('close', () => wentDown('connection closed'));
  client.on('ready', () => {
    const outage = outages.get(url);
    if (!outage?.clients.delete(role) || outage.clients.size > 0) return;
    outages.delete(url);
    logger.info({ downMs: Date.now() - outage.since }, 'Redis reachable again');
  });
}

/** /ready's view of the Redis clients: never a command, only their connection state. */
export function redisHealth(clients: ReadonlyArray<Redis>): RedisHealth {
  return {
    status() {
      const notReady = clients.filter((c) => c.status !== 'ready');
      return notReady.length === 0
        ? 'ok'
        : `degraded: not connected (${notReady.map((c) => c.options.connectionName ?? c.status).join(', ')}); live events and rate limits are per replica`;
    },
  };
}

/**
 * A Redis that is frozen rather than gone (a stopped process, a dead network path) keeps its TCP
 * connection open, so ioredis would go on sending commands that each wait the full timeout. The
 * first timeout drops the connection instead: until a reconnect completes its ready check the
 * client is not ready, and callers fall back at once.
 */
function reconnectOnCommandTimeout(client: Redis, role: RedisRole, logger: Logger): void {
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((command: Parameters<Redis['sendCommand']>[0], stream?: Parameters<Redis['sendCommand']>[1]) => {
    const result = send(command, stream);
    command.promise.catch((error: unknown) => {
      if (error instanceof Error && error.message === 'Command timed out' && client.status === 'ready') {
        logger.warn(
          { redis: role, timeoutMs: REDIS_COMMAND_TIMEOUT_MS },
          'Redis did not answer in time; reconnecting, falling back meanwhile',
        );
        // disconnect() would only half-close, and a frozen peer never closes its side.
        client.stream?.destroy();
      }
    });
    return result;
  }) as Redis['sendCommand'];
}

/**
 * Closes a client within `timeoutMs` whatever Redis is doing: QUIT when connected (pending replies
 * arrive first), else, or past the timeout, a plain disconnect. A QUIT sent while Redis is
 * unreachable waits in ioredis's offline queue for a reconnection that may never come, which kept
 * stopping processes alive for as long as Redis was down (issue 30).
 */
export async function closeRedis(client: Redis, timeoutMs = 1_000): Promise<void> {
  if (client.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([
      client.quit().then(
        () => undefined,
        () => undefined,
      ),
      timedOut,
    ]);
    clearTimeout(timer);
  }
  client.disconnect();
}
