import type { OperationalEvent } from '../../src/events/live-events';
import type { TestServer } from './http';
import { openSse } from './sse';

/** Subscribing to `operationalEvents` as an admin would (ADR 0022). */

export const SUBSCRIPTION = `subscription($events: [OperationalEventName!]) {
  operationalEvents(events: $events) { event name at webhookId url itemId failureId attempts error statusCode failingSince consecutiveFailedItems }
}`;

/** As streamed: `event` is the GraphQL enum (delivery_failed), `name` the dotted name (delivery.failed). */
export type Streamed = Omit<OperationalEvent, 'event'> & { event: string; name: string };
export type Subscriber = { events: Array<{ data?: { operationalEvents: Streamed }; errors?: unknown[] }>; close(): Promise<void> };

/** A real subscriber over SSE; resolves once the stream is open. */
export function sseSubscriber(api: TestServer, token: string, variables: Record<string, unknown> = {}): Promise<Subscriber> {
  return openSse<Subscriber['events'][number]>(api.url, token, SUBSCRIPTION, variables);
}

/** An operational event published straight to a server's hub: a probe that tells when a subscription is live. */
export function probeEvent(n: number): OperationalEvent {
  return {
    event: 'delivery.failed',
    at: new Date().toISOString(),
    webhookId: null,
    url: `probe:${n}`,
    itemId: null,
    failureId: null,
    attempts: null,
    error: null,
    statusCode: null,
    failingSince: null,
    consecutiveFailedItems: null,
  };
}
