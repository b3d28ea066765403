import { EventEmitter } from 'node:events';
import { createPubSub, type PubSub } from 'graphql-yoga';
import type Redis from 'ioredis';
import pino, { type Logger } from 'pino';
import type { SyncFailureEvent } from '../failures/failure.input';
import { createRedisClient, redisHealth, type RedisHealth } from '../redis/redis-client';
import { createFailoverEventTarget, type LiveEventsGap } from './failover-event-target';

export type { LiveEventsGap } from './failover-event-target';
export { isLiveEventsGap } from './failover-event-target';

export type FailurePubSub = PubSub<{ syncFailure: [SyncFailureEvent | LiveEventsGap] }>;

/**
 * Events inside the service: sync_failure for subscribers (fanned out through Redis when
 * REDIS_URL is set, so every replica's subscribers see every replica's failures), and a
 * "queue has work" signal that wakes this process's worker at once.
 *
 * Live events are at most once (docs/adr/0015): while Redis is unreachable a replica delivers its
 * own events to its own subscribers, and when Redis is back each of its subscribers receives a
 * gap marker naming the interval in which events of other replicas may have been missed.
 */
export type EventHub = {
  pubsub: FailurePubSub;
  publishFailure(event: SyncFailureEvent): void;
  signalQueueWork(): void;
  onQueueWork(listener: () => void): () => void;
  /** Redis connection state for /ready (absent without REDIS_URL). */
  redis?: RedisHealth;
  close(): Promise<void>;
};

export function createEventHub(options: { redisUrl?: string | undefined; logger?: Logger } = {}): EventHub {
  const queue = new EventEmitter();
  queue.setMaxListeners(0);
  const logger = options.logger ?? pino({ level: 'silent' });
  let clients: { publish: Redis; subscribe: Redis } | undefined;
  let pubsub: FailurePubSub;
  if (options.redisUrl) {
    clients = {
      publish: createRedisClient(options.redisUrl, 'events-publish', logger),
      subscribe: createRedisClient(options.redisUrl, 'events-subscribe', logger),
    };
    pubsub = createPubSub<{ syncFailure: [SyncFailureEvent | LiveEventsGap] }>({
      eventTarget: createFailoverEventTarget({ ...clients, logger, gapTopics: ['syncFailure'] }),
    });
  } else {
    pubsub = createPubSub<{ syncFailure: [SyncFailureEvent | LiveEventsGap] }>();
  }
  return {
    pubsub,
    publishFailure: (event) => pubsub.publish('syncFailure', event),
    signalQueueWork: () => queue.emit('work'),
    onQueueWork(listener) {
      queue.on('work', listener);
      return () => queue.off('work', listener);
    },
    ...(clients ? { redis: redisHealth([clients.publish, clients.subscribe]) } : {}),
    async close() {
      queue.removeAllListeners();
      if (clients) await Promise.all([clients.publish, clients.subscribe].map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}
