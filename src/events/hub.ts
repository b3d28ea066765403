import { EventEmitter } from 'node:events';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub, type PubSub } from 'graphql-yoga';
import Redis from 'ioredis';
import type { SyncFailureEvent } from '../failures/failure.input';

/** Some token or session was revoked: every replica re-verifies the credentials of its open streams. */
export type RevocationNotice = { at: string };
type Topics = { syncFailure: [SyncFailureEvent]; credentialsRevoked: [RevocationNotice] };
export type FailurePubSub = PubSub<Topics>;

/**
 * Events inside the service: sync_failure for subscribers (fanned out through Redis when
 * REDIS_URL is set, so every replica's subscribers see every replica's failures), and a
 * "queue has work" signal that wakes this process's worker at once.
 */
export type EventHub = {
  pubsub: FailurePubSub;
  publishFailure(event: SyncFailureEvent): void;
  /** Tells every replica (this one too) that a credential was revoked. */
  publishRevocation(): void;
  onRevocation(listener: () => void): () => void;
  signalQueueWork(): void;
  onQueueWork(listener: () => void): () => void;
  close(): Promise<void>;
};

export function createEventHub(options: { redisUrl?: string | undefined } = {}): EventHub {
  const queue = new EventEmitter();
  queue.setMaxListeners(0);
  let redis: { publish: Redis; subscribe: Redis } | undefined;
  let pubsub: FailurePubSub;
  const revocationFeeds = new Set<AsyncIterator<RevocationNotice>>();
  if (options.redisUrl) {
    redis = { publish: new Redis(options.redisUrl), subscribe: new Redis(options.redisUrl) };
    pubsub = createPubSub<Topics>({
      eventTarget: createRedisEventTarget({ publishClient: redis.publish, subscribeClient: redis.subscribe }),
    });
  } else {
    pubsub = createPubSub<Topics>();
  }
  return {
    pubsub,
    publishFailure: (event) => pubsub.publish('syncFailure', event),
    publishRevocation: () => pubsub.publish('credentialsRevoked', { at: new Date().toISOString() }),
    onRevocation(listener) {
      const notices = pubsub.subscribe('credentialsRevoked');
      revocationFeeds.add(notices);
      void (async () => {
        for await (const _notice of notices) listener();
      })();
      return () => {
        revocationFeeds.delete(notices);
        void notices.return?.();
      };
    },
    signalQueueWork: () => queue.emit('work'),
    onQueueWork(listener) {
      queue.on('work', listener);
      return () => queue.off('work', listener);
    },
    async close() {
      queue.removeAllListeners();
      // Unsubscribed before the connections quit, or the UNSUBSCRIBE fails on a closed connection.
      await Promise.all([...revocationFeeds].map((notices) => notices.return?.()));
      revocationFeeds.clear();
      if (redis) await Promise.all([redis.publish.quit(), redis.subscribe.quit()]);
    },
  };
}
