import type Redis from 'ioredis';
import type { Logger } from 'pino';

/** Sent to local subscribers when Redis is back: events of other replicas between `from` and `until` may be missing. */
export type LiveEventsGap = { event: 'gap'; from: string; until: string };

export const isLiveEventsGap = (value: unknown): value is LiveEventsGap =>
  typeof value === 'object' && value !== null && (value as { event?: unknown }).event === 'gap';

type Callback = (event: CustomEvent) => void;
type Listener = Callback | { handleEvent: Callback };

/**
 * The event target of Yoga's pubsub over Redis pub/sub, for an unreliable Redis. Like
 * @graphql-yoga/redis-event-target when Redis is up; when it is not, an event is delivered to
 * this process's subscribers at once (never queued, never waiting), and the outage is remembered
 * so that a gap marker reaches every subscriber when Redis returns.
 */
export function createFailoverEventTarget(options: {
  publish: Redis;
  subscribe: Redis;
  logger: Logger;
  /** Topics that receive a gap marker after an outage. */
  gapTopics: readonly string[];
}): EventTarget {
  const { publish, subscribe, logger } = options;
  const callbacks = new Map<string, Set<Callback>>();
  let gapSince: Date | undefined;

  const deliverLocally = (topic: string, detail: unknown) => {
    const event = new CustomEvent(topic, { detail });
    for (const callback of callbacks.get(topic) ?? []) callback(event);
  };
  const bothReady = () => publish.status === 'ready' && subscribe.status === 'ready';
  const openGap = () => (gapSince ??= new Date());
  const closeGapIfRecovered = () => {
    if (!gapSince || !bothReady()) return;
    const gap: LiveEventsGap = { event: 'gap', from: gapSince.toISOString(), until: new Date().toISOString() };
    gapSince = undefined;
    logger.info({ gap }, 'live events: Redis is back; subscribers told of the gap');
    for (const topic of options.gapTopics) deliverLocally(topic, gap);
  };
  for (const client of [publish, subscribe]) {
    client.on('close', openGap);
    client.on('error', openGap);
    client.on('ready', closeGapIfRecovered);
  }

  subscribe.on('message', (channel: string, message: string) => {
    try {
      deliverLocally(channel, message === '' ? null : JSON.parse(message));
    } catch (error) {
      logger.warn({ err: error, channel }, 'unreadable live event from Redis ignored');
    }
  });

  const callbackOf = (listener: Listener): Callback => ('handleEvent' in listener ? listener.handleEvent : listener);
  return {
    addEventListener(topic: string, listener: Listener | null) {
      if (!listener) return;
      let set = callbacks.get(topic);
      if (!set) {
        set = new Set();
        callbacks.set(topic, set);
        // Queued while disconnected; ioredis subscribes again after every reconnect.
        subscribe.subscribe(topic).catch((error: unknown) => logger.warn({ err: error, topic }, 'could not subscribe to live events'));
      }
      set.add(callbackOf(listener));
    },
    removeEventListener(topic: string, listener: Listener | null) {
      const set = callbacks.get(topic);
      if (!listener || !set) return;
      set.delete(callbackOf(listener));
      if (set.size > 0) return;
      callbacks.delete(topic);
      subscribe.unsubscribe(topic).catch(() => undefined);
    },
    dispatchEvent(event: Event) {
      const detail = (event as CustomEvent).detail as unknown;
      const topic = event.type;
      if (publish.status !== 'ready') {
        openGap();
        deliverLocally(topic, detail);
        return true;
      }
      // Our own subscriber down: others hear it through Redis, ours directly.
      if (subscribe.status !== 'ready') {
        openGap();
        deliverLocally(topic, detail);
      }
      const local = subscribe.status === 'ready';
      publish.publish(topic, detail === undefined ? '' : JSON.stringify(detail)).catch((error: unknown) => {
        openGap();
        logger.debug({ err: error, topic }, 'live event not published to Redis; delivered locally');
        if (local) deliverLocally(topic, detail);
      });
      return true;
    },
  } as EventTarget;
}
