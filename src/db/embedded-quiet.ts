/**
 * When the embedded store has gone quiet after work (ADR 0039): the moment to recycle its PGlite
 * instance so that the memory a load left behind is given back while nobody waits for it.
 *
 * "Quiet" is measured as the time the store's thread spent running calls, not as the absence of
 * calls: the webhook worker polls its queue every second and housekeeping looks at the tables every
 * five, so a store in a quiet shop is never without a call for long, but those take a few
 * milliseconds. A window in which calls ran for at most `quietShare` of it is quiet.
 *
 * "After work": since the instance was opened, it must have run calls for at least `minWorkMs` in
 * windows busy enough to be a load: ones in which calls ran for at least `workShare` of it. A fresh
 * instance (after any recycle) starts from zero, so a store that stays quiet is recycled once, not
 * at every window. 2 s, not more: a recycle at the ceiling late in a load leaves a fresh instance
 * with little work but a grown RSS (10 s missed one 27 s before the end of a soak).
 *
 * Only busy windows count, not every call: counting every call, a store polled every few seconds
 * on a loaded machine (its polls' store time inflated by the load) added up 2 s every few minutes
 * and recycled each time, pausing for about a second, while its RSS never moved (`bench/idle-hour.ts`:
 * 19 recycles in an hour at 243–258 MB). Such polls take well under 5 % of a window; a load that
 * leaves memory behind (a push of thousands of records, a webshop polling flat out) takes more.
 */

export type QuietSettings = {
  /** Length of the window looked at; 0 turns the watch off. */
  windowMs: number;
  /** Share of a window the calls may take for it to be quiet. */
  quietShare: number;
  /** Share of a window the calls must take for their time in it to count as work. */
  workShare: number;
  /** Work (time running calls in busy windows) since the instance was opened before it is worth recycling. */
  minWorkMs: number;
};

export const QUIET_DEFAULTS = { quietShare: 0.01, workShare: 0.05, minWorkMs: 2_000 };

export type QuietWatch = {
  callStarted(): void;
  callEnded(): void;
  /** A fresh instance: its work counts from now. */
  opened(): void;
  stop(): void;
};

export function watchForQuiet(settings: QuietSettings, onQuiet: () => void, now = () => performance.now()): QuietWatch {
  let running = 0;
  let busySince = 0;
  // Busy time so far, completed calls only; the running stretch is added when asked.
  let busyDone = 0;
  const busy = () => busyDone + (running > 0 ? now() - busySince : 0);
  let atWindowStart = 0;
  // Busy time in busy windows since the instance opened.
  let work = 0;

  const timer =
    settings.windowMs > 0
      ? setInterval(() => {
          const total = busy();
          const inWindow = total - atWindowStart;
          atWindowStart = total;
          if (inWindow >= settings.windowMs * settings.workShare) work += inWindow;
          else if (running === 0 && inWindow <= settings.windowMs * settings.quietShare && work >= settings.minWorkMs) onQuiet();
        }, settings.windowMs)
      : undefined;

  return {
    callStarted() {
      if (running++ === 0) busySince = now();
    },
    callEnded() {
      if (--running === 0) busyDone += now() - busySince;
    },
    opened() {
      // The old instance's calls in this window are not the fresh one's work.
      work = 0;
      atWindowStart = busy();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
