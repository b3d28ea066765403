/**
 * Waits for an event instead of a fixed time: polls `condition` every 25 ms (`intervalMs`) until it
 * holds, and fails naming `what` (and the condition's last error, if it threw: a server not
 * answering yet counts as not yet) once `timeoutMs` has passed. The timeout only bounds a failing
 * test; a passing one takes as long as the event takes.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what = 'condition',
  options: { intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await condition()) return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`${what}: not within ${timeoutMs} ms${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}

/** As `waitFor`, for a value: polls `probe` until it returns one (not undefined or null) and returns it. */
export async function waitForValue<T>(
  probe: () => T | undefined | null | Promise<T | undefined | null>,
  timeoutMs: number,
  what = 'value',
): Promise<T> {
  let value: T | undefined | null;
  await waitFor(async () => (value = await probe()) !== undefined && value !== null, timeoutMs, what);
  return value as T;
}

/**
 * Sends probes (a failure report, an event) until one has come through a subscription, as
 * `arrived` tells: from then on the server (and Redis, across replicas) has the subscription, and
 * what is sent next reaches it. A fixed pause instead loses the event on a busy machine.
 */
export async function untilLive(
  sendProbe: (n: number) => unknown,
  arrived: () => boolean,
  what = 'the subscription',
  timeoutMs = 60_000,
): Promise<void> {
  let sent = 0;
  await waitFor(
    async () => {
      if (arrived()) return true;
      await sendProbe(sent++);
      return false;
    },
    timeoutMs,
    `${what} live`,
    { intervalMs: 100 },
  );
}
