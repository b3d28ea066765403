/**
 * Waits for an event instead of a fixed time: polls `condition` every 25 ms until it holds, and
 * fails naming `what` (and the condition's last error, if it threw: a server not answering yet
 * counts as not yet) once `timeoutMs` has passed. The timeout only bounds a failing test; a passing
 * one takes as long as the event takes.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number, what = 'condition'): Promise<void> {
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
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
