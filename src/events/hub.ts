import { EventEmitter } from 'node:events';
import { createPubSub, type PubSub } from 'graphql-yoga';
import type Redis from 'ioredis';
import pino, { type Logger } from 'pino';
import { createRedisClient, redisHealth, type RedisHealth, closeRedis } from '../redis/redis-client';
import { createFailoverEventTarget, type LiveEventsGap } from './failover-event-target';
import type { OperationalEvent, SyncFailureEvent } from './live-events';

export type { LiveEventsGap } from './failover-event-target';
export { isLiveEventsGap } from './failover-event-target';

/** Some token or session was revoked: every replica re-verifies the credentials of its open streams. */
export type RevocationNotice = { at: string };
type Topics = {
  syncFailure: [SyncFailureEvent | LiveEventsGap];
  operationalEvents: [OperationalEvent | LiveEventsGap];
  credentialsRevoked: [RevocationNotice];
};
export type FailurePubSub = PubSub<Topics>;

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
  /** Webhook disabled, delivery abandoned or recovered (ADR 0022), to admins on every replica. */
  publishOperational(event: OperationalEvent): void;
  /** Tells every replica (this one too) that a credential was revoked. */
  publishRevocation(): void;
  onRevocation(listener: () => void): () => void;
  signalQueueWork(): void;
  onQueueWork(listener: () => void): () => void;
  /** Redis connection state for /ready (absent without REDIS_URL). */
  redis?: RedisHealth;
  /**
   * Waits (at most `timeoutMs`) until Redis can take a publication; true at once without Redis.
   * A short-lived process (the CLI) publishes right after connecting, and Redis clients here
   * queue nothing while disconnected.
   */
  whenConnected(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
};

export function createEventHub(options: { redisUrl?: string | undefined; logger?: Logger } = {}): EventHub {
  const queue = new EventEmitter();
  queue.setMaxListeners(0);
  const logger = options.logger ?? pino({ level: 'silent' });
  let clients: { publish: Redis; subscribe: Redis } | undefined;
  let pubsub: FailurePubSub;
  const revocationFeeds = new Set<AsyncIterator<RevocationNotice>>();
  if (options.redisUrl) {
    clients = {
      publish: createRedisClient(options.redisUrl, 'events-publish', logger),
      subscribe: createRedisClient(options.redisUrl, 'events-subscribe', logger),
    };
    pubsub = createPubSub<Topics>({
      eventTarget: createFailoverEventTarget({ ...clients, logger, gapTopics: ['syncFailure', 'operationalEvents'] }),
    });
  } else {
    pubsub = createPubSub<Topics>();
  }
  return {
    pubsub,
    publishFailure: (event) => pubsub.publish('syncFailure', event),
    publishOperational: (event) => pubsub.publish('operationalEvents', event),
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
    ...(clients ? { redis: redisHealth([clients.publish, clients.subscribe]) } : {}),
    whenConnected: (timeoutMs) => (clients ? connected(clients.publish, timeoutMs) : Promise.resolve(true)),
    async close() {
      queue.removeAllListeners();
      // Unsubscribed before the connections quit, or the UNSUBSCRIBE fails on a closed connection.
      await Promise.all([...revocationFeeds].map((notices) => notices.return?.()));
      revocationFeeds.clear();
      if (clients) await Promise.all([clients.publish, clients.subscribe].map((c) => closeRedis(c)));
    },
  };
}

function connected(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.on('ready', onReady);
  });
}
