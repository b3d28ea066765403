import type { Logger } from 'pino';
import { listenOnChannel, type ChannelListener } from '../events/pg-channel-listener';
import { QUEUE_CHANNEL } from './queue.service';

export type QueueListener = ChannelListener;

/** The connection's name in pg_stat_activity (operators and tests find it by this). */
export const LISTEN_APPLICATION_NAME = 'sync-gateway-listen';

/** LISTEN for work queued by other replicas; the worker polls meanwhile while the connection is down. */
export function listenForQueueWork(
  databaseUrl: string,
  options: { logger: Logger; onWork: () => void; connectTimeoutMs?: number; ownPayload?: string | undefined },
): QueueListener {
  return listenOnChannel(databaseUrl, { ...options, channel: QUEUE_CHANNEL, applicationName: LISTEN_APPLICATION_NAME });
}
