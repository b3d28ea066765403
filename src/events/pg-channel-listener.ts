import { Client } from 'pg';
import type { Logger } from 'pino';
import { describeDatabaseError } from '../errors/database-errors';

export type ChannelListener = {
  /** True while LISTEN is in effect on a live connection. */
  listening(): boolean;
  close(): Promise<void>;
};

const reconnectDelay = (attempt: number) => Math.min(100 * 2 ** Math.max(0, attempt - 1), 5_000);

/**
 * LISTEN on `channel` (a name written in the code), on a connection of its own that comes back
 * after any database restart or terminated backend: reconnect with backoff (100 ms doubling to
 * 5 s), LISTEN again, then `onWork()` at once, since notifications sent while it was away are gone.
 */
export function listenOnChannel(
  databaseUrl: string,
  options: {
    channel: string;
    /** The connection's name in pg_stat_activity (operators and tests find it by this). */
    applicationName: string;
    logger: Logger;
    onWork: () => void;
    connectTimeoutMs?: number;
    /**
     * Whether `onWork()` runs once LISTEN is first in effect, as it does after every reconnection
     * (default true). Off for listeners with nothing to catch up on at start.
     */
    wakeOnFirstListen?: boolean;
    /** Notifications with this payload are ignored: they come from this process, whose worker was woken already. */
    ownPayload?: string | undefined;
  },
): ChannelListener {
  const { logger, onWork } = options;
  let closed = false;
  let client: Client | undefined;
  let listening = false;
  let everListened = false;
  let cancelWait: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      cancelWait = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function keepListening(): Promise<void> {
    let failures = 0;
    while (!closed) {
      const connection = new Client({
        connectionString: databaseUrl,
        application_name: options.applicationName,
        connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
      });
      client = connection;
      const lost = new Promise<string>((resolve) => {
        connection.on('error', (error) => resolve(describeDatabaseError(error)));
        connection.on('end', () => resolve('connection ended'));
      });
      connection.on('notification', (notification: { payload?: string | undefined }) => {
        if (options.ownPayload === undefined || notification.payload !== options.ownPayload) onWork();
      });
      try {
        await connection.connect();
        await connection.query(`LISTEN ${options.channel}`);
        listening = true;
        if (failures > 0) logger.info({ channel: options.channel, attempts: failures }, 'LISTEN re-established');
        failures = 0;
        if (everListened || options.wakeOnFirstListen !== false) onWork();
        everListened = true;
        const cause = await lost;
        listening = false;
        if (closed) break;
        logger.warn({ channel: options.channel, cause }, 'LISTEN connection lost; reconnecting');
      } catch (error) {
        listening = false;
        if (closed) break;
        if (failures === 0)
          logger.warn({ channel: options.channel, cause: describeDatabaseError(error) }, 'could not LISTEN; retrying with backoff');
      }
      connection.removeAllListeners('notification');
      void connection.end().catch(() => undefined);
      failures++;
      await sleep(reconnectDelay(failures));
    }
  }

  const loop = keepListening();
  return {
    listening: () => listening,
    async close() {
      closed = true;
      cancelWait?.();
      await client?.end().catch(() => undefined);
      await loop;
    },
  };
}
