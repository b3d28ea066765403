/**
 * Expensive operations in flight, per caller and per process (ADR 0043). Memory, not time, is what
 * they exhaust, so what is counted is operations running, not operations per minute: a caller over
 * its share is refused at once (429: it is that caller's own load), and past the process's share
 * an operation waits its turn in order, up to `waitMs`, before a 503 (the replica is busy; another
 * may not be). Counters live in this process because the heap they protect is this process's.
 */
export type ExpensiveSlots = {
  /** A release function, or why not: the caller has `perCaller` running, or no turn came within waitMs. */
  acquire(caller: string): Promise<{ release: () => void } | { refused: 'caller' | 'busy' }>;
  /** Operations running now (for tests and metrics). */
  running(): number;
};

/** The longest a slot rests after one operation. */
const MAX_REST_MS = 1_000;

export function createExpensiveSlots(limits: {
  perCaller: number;
  perProcess: number;
  waitMs: number;
  /**
   * A process slot rests after an operation for this share of the time the operation held it
   * (1: as long again), so that expensive operations leave the event loop to everyone else for
   * that share of the time however many wait: a poll waits behind at most one of them. At most 1 s.
   */
  restRatio?: number;
}): ExpensiveSlots {
  const byCaller = new Map<string, number>();
  let running = 0;
  const queue: Array<{ grant: () => void; timer: NodeJS.Timeout }> = [];

  const releaseCaller = (caller: string) => {
    const left = (byCaller.get(caller) ?? 1) - 1;
    if (left > 0) byCaller.set(caller, left);
    else byCaller.delete(caller);
  };
  const releaseProcess = () => {
    const next = queue.shift();
    if (next) {
      clearTimeout(next.timer);
      next.grant(); // the slot passes to the next in line: `running` stays the same
    } else running--;
  };

  return {
    async acquire(caller) {
      if ((byCaller.get(caller) ?? 0) >= limits.perCaller) return { refused: 'caller' };
      byCaller.set(caller, (byCaller.get(caller) ?? 0) + 1);
      const granted =
        running < limits.perProcess
          ? (running++, true)
          : await new Promise<boolean>((resolve) => {
              const entry = {
                grant: () => resolve(true),
                timer: setTimeout(() => {
                  queue.splice(queue.indexOf(entry), 1);
                  resolve(false);
                }, limits.waitMs).unref(), // a wait never keeps a stopping process alive
              };
              queue.push(entry);
            });
      if (!granted) {
        releaseCaller(caller);
        return { refused: 'busy' };
      }
      let released = false;
      const heldSince = performance.now();
      return {
        release: () => {
          if (released) return;
          released = true;
          releaseCaller(caller);
          // Capped: an operation that mostly waited (for a lock, a busy store) used little of the
          // event loop, and a long rest would time out everyone queued behind it.
          const restMs = Math.min((performance.now() - heldSince) * (limits.restRatio ?? 0), MAX_REST_MS);
          if (restMs >= 1) setTimeout(releaseProcess, restMs).unref();
          else releaseProcess();
        },
      };
    },
    running: () => running,
  };
}
