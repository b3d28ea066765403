/**
 * Retries of the client's requests. Every request the client sends may be sent again: reads change
 * nothing, acknowledgements name the revision they cover (sending one twice is harmless), and
 * pushes carry an Idempotency-Key that the server answers from its record on a retry. So a 429, a
 * 5xx or a lost connection is retried, waiting what Retry-After says (429 and 503 carry it) or an
 * exponential backoff with jitter, up to `attempts` tries.
 */
export type RetryOptions = {
  /** Tries in all, the first included (default 8). */
  attempts?: number;
  /** The first backoff in ms when the server names no wait (default 200), doubled each time up to `maxDelayMs`. */
  baseDelayMs?: number;
  /** The longest wait between tries in ms (default 30,000). */
  maxDelayMs?: number;
  /** Told of each retry: what failed and how long the client waits (for logs). */
  onRetry?: (info: { attempt: number; delayMs: number; status?: number; error?: unknown; url: string }) => void;
};

const RETRIED_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

/** Seconds or an HTTP date, as Retry-After may say; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** A fetch that retries as above; the body is buffered once so that it can be sent again. */
export function retryingFetch(fetchImpl: typeof fetch, options: RetryOptions = {}): typeof fetch {
  const attempts = options.attempts ?? 8;
  const base = options.baseDelayMs ?? 200;
  const max = options.maxDelayMs ?? 30_000;
  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.body ? await request.arrayBuffer() : undefined;
    for (let attempt = 1; ; attempt++) {
      const backoff = Math.min(max, base * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
      let response: Response;
      try {
        response = await fetchImpl(new Request(request, body === undefined ? {} : { body }));
      } catch (error) {
        if (attempt >= attempts || request.signal.aborted) throw error;
        options.onRetry?.({ attempt, delayMs: backoff, error, url: request.url });
        await sleep(backoff, request.signal);
        continue;
      }
      if (!RETRIED_STATUSES.has(response.status) || attempt >= attempts) return response;
      const delayMs = Math.min(max, retryAfterMs(response.headers.get('retry-after')) ?? backoff);
      await response.body?.cancel();
      options.onRetry?.({ attempt, delayMs, status: response.status, url: request.url });
      await sleep(delayMs, request.signal);
    }
  };
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
