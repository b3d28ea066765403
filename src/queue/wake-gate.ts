/**
 * How the main thread wakes the webhook worker thread (ADR 0005) without a message per report: one
 * Int32 shared by both threads holds the worker's state, and a message is posted only when the
 * worker is asleep. Under a stream of reports the worker is mostly claiming or delivering, and a
 * report then costs one atomic exchange instead of a `postMessage` (a structured clone, a wake-up
 * of the thread's event loop and a message event).
 *
 * No wake-up is lost. Every transition is one atomic read-modify-write on the same word (JavaScript
 * atomics are sequentially consistent), so the worker's last check and its going to sleep are one
 * step, and a report sees either "asleep" (and posts) or "not asleep" (and the worker will look):
 * - The worker sets BUSY (`takeWork`) before each claim: a report committed before that exchange
 *   is seen by the claim that follows it.
 * - A report, after its commit, sets WORK (`signalWork`); it posts only if it replaced ASLEEP.
 * - The worker goes to sleep only by turning BUSY into ASLEEP (`mayWait`). If a report set WORK
 *   since the claim began (its items may have committed after the claim's snapshot), that fails
 *   and the worker claims again instead of sleeping.
 * A report that found BUSY or WORK has not posted, and needs no message: the worker has not yet
 * passed its check, which will see WORK. A report that found ASLEEP posts, and the worker's next
 * `takeWork` comes after it. A worker woken by its poll timer, a freed slot or a NOTIFY while
 * ASLEEP may still get a message meant for the sleep it left: that costs one more claim, never a
 * delivery.
 */

/** The worker is claiming or delivering and nothing was reported since its last claim began. */
export const BUSY = 0;
/** A report committed since the worker's last claim began. */
export const WORK = 1;
/** The worker is waiting for a message (or its poll interval). */
export const ASLEEP = 2;

export function createWakeState(): SharedArrayBuffer {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
}

/** The main thread, after a report's commit: true when the worker is asleep and must be posted a message. */
export function signalWork(state: Int32Array): boolean {
  return Atomics.exchange(state, 0, WORK) === ASLEEP;
}

/** What the worker loop asks of the state (`WorkerOptions.wakeGate`). */
export type WakeGate = {
  /** Before a claim: what was reported until now is that claim's to find. */
  takeWork(): void;
  /** Before waiting: false when work was reported since the claim began (claim again instead). */
  mayWait(): boolean;
};

/** The worker thread's side of the shared state. */
export function wakeGate(state: Int32Array): WakeGate {
  return {
    takeWork: () => void Atomics.store(state, 0, BUSY),
    mayWait: () => Atomics.compareExchange(state, 0, BUSY, ASLEEP) === BUSY,
  };
}
