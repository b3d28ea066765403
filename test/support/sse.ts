/** A GraphQL subscription over SSE as a client opens it: every `data:` payload, in order. */
export type SseStream<T> = {
  events: T[];
  /** Resolves when the server ends the stream (or `close` does). */
  ended: Promise<void>;
  close(): Promise<void>;
};

/**
 * POSTs `query` to `baseUrl`/graphql with `accept: text/event-stream` as `token` and reads the
 * stream in the background; resolves once the server has answered 200 (the stream is open).
 */
export async function openSse<T = unknown>(
  baseUrl: string,
  token: string,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<SseStream<T>> {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  });
  if (response.status !== 200) throw new Error(`the subscription answered ${response.status}: ${await response.text()}`);
  const events: T[] = [];
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith('data: ') && line.length > 6) events.push(JSON.parse(line.slice(6)) as T);
    }
  })();
  return {
    events,
    ended,
    async close() {
      abort.abort();
      await ended;
    },
  };
}
