import type { OperationalEvent } from '../../src/events/live-events';
import type { TestServer } from './http';

/** Subscribing to `operationalEvents` as an admin would (ADR 0022). */

export const SUBSCRIPTION = `subscription($events: [OperationalEventName!]) {
  operationalEvents(events: $events) { event name at webhookId url itemId failureId attempts error statusCode failingSince consecutiveFailedItems }
}`;

/** As streamed: `event` is the GraphQL enum (delivery_failed), `name` the dotted name (delivery.failed). */
export type Streamed = Omit<OperationalEvent, 'event'> & { event: string; name: string };
export type Subscriber = { events: Array<{ data?: { operationalEvents: Streamed }; errors?: unknown[] }>; close(): Promise<void> };

/** A real subscriber over SSE; resolves once the stream is open. */
export async function sseSubscriber(api: TestServer, token: string, variables: Record<string, unknown> = {}): Promise<Subscriber> {
  const abort = new AbortController();
  const response = await fetch(`${api.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: SUBSCRIPTION, variables }),
    signal: abort.signal,
  });
  expect(response.status).toBe(200);
  const events: Subscriber['events'] = [];
  const reader = response.body!.getReader();
  const reading = (async () => {
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buffer += new TextDecoder().decode(value);
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)));
    }
  })();
  return {
    events,
    async close() {
      abort.abort();
      await reading;
    },
  };
}

/** Polls (generously) until `check` passes: events cross an HTTP stream. */
export async function eventually<T>(check: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the condition never held');
}
