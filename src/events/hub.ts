import { EventEmitter } from 'node:events';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub, type PubSub } from 'graphql-yoga';
import Redis from 'ioredis';
import type { SyncFailureEvent } from '../failures/failure.input';

export type FailurePubSub = PubSub<{ syncFailure: [SyncFailureEvent] }>;

/**
 * Events inside the service: sync_failure for subscribers (fanned out through Redis when
 * REDIS_URL is set, so every replica's subscribers see every replica's failures), and a
 * "queue has work" signal that wakes this process's worker at once.
 */
export type EventHub = {
  pubsub: FailurePubSub;
  publishFailure(event: SyncFailureEvent): void;
  signalQueueWork(): void;
  onQueueWork(listener: () => void): () => void;
  close(): Promise<void>;
};

export function createEventHub(options: { redisUrl?: string | undefined } = {}): EventHub {
  const queue = new EventEmitter();
  queue.setMaxListeners(0);
  let redis: { publish: Redis; subscribe: Redis } | undefined;
  let pubsub: FailurePubSub;
  if (options.redisUrl) {
    redis = { publish: new Redis(options.redisUrl), subscribe: new Redis(options.redisUrl) };
    pubsub = createPubSub<{ syncFailure: [SyncFailureEvent] }>({
      eventTarget: createRedisEventTarget({ publishClient: redis.publish, subscribeClient: redis.subscribe }),
    });
  } else {
    pubsub = createPubSub<{ syncFailure: [SyncFailureEvent] }>();
  }
  return {
    pubsub,
    publishFailure: (event) => pubsub.publish('syncFailure', event),
    signalQueueWork: () => queue.emit('work'),
    onQueueWork(listener) {
      queue.on('work', listener);
      return () => queue.off('work', listener);
    },
    async close() {
      queue.removeAllListeners();
      if (redis) await Promise.all([redis.publish.quit(), redis.subscribe.quit()]);
    },
  };
}
