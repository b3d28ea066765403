/**
 * When the embedded store has gone quiet after work (ADR 0039): the moment to recycle its PGlite
 * instance so that the memory a load left behind is given back while nobody waits for it.
 *
 * "Quiet" is measured as the time the store's thread spent running calls, not as the absence of
 * calls: the webhook worker polls its queue every second and housekeeping looks at the tables every
 * five, so a store in a quiet shop is never without a call for long, but those take a few
 * milliseconds. A window in which calls ran for at most `quietShare` of it is quiet.
 *
 * "After work": the instance must have run calls for at least `minWorkMs` in total since it was
 * opened. A fresh instance (after any recycle) starts from zero, so a store that stays quiet is
 * recycled once, not at every window; the trickle of polls adds up to another recycle only after a
 * while (a few milliseconds a second: some ten minutes for 2 s of work). 2 s, not more: a recycle at
 * the ceiling late in a load leaves a fresh instance with little work but a grown RSS (10 s missed
 * one 27 s before the end of a soak).
 *
 * "Something to give back": the process's RSS must have grown by `minRssGrowthBytes` since the
 * instance opened. Without it a store polled on a loaded machine reached its 2 s of work every few
 * minutes and recycled, pausing for about a second each time, while its RSS never moved
 * (`bench/idle-hour.ts`: 19 recycles in an hour at 243–258 MB). The RSS is the whole process's, not
 * the WebAssembly memory's size: a load that ends below PGlite's next growth step still leaves its
 * pages resident (30–110 MB, ADR 0039), and those are what a recycle returns.
 */

export type QuietSettings = {
  /** Length of the window looked at; 0 turns the watch off. */
  windowMs: number;
  /** Share of a window the calls may take for it to be quiet. */
  quietShare: number;
  /** Time spent running calls since the instance was opened before it is worth recycling. */
  minWorkMs: number;
  /** Growth of the process's RSS since the instance was opened before it is worth recycling. */
  minRssGrowthBytes: number;
};

/**
 * 24 MiB: above the RSS's own drift over a quiet hour (243–258 MB, 15 MB), below the least a load
 * was measured to leave behind (30 MB).
 */
export const QUIET_DEFAULTS = { quietShare: 0.01, minWorkMs: 2_000, minRssGrowthBytes: 24 * 1024 * 1024 };

export type QuietWatch = {
  callStarted(): void;
  callEnded(): void;
  /** A fresh instance: its work and its RSS count from now. */
  opened(): void;
  stop(): void;
};

export function watchForQuiet(
  settings: QuietSettings,
  onQuiet: () => void,
  now = () => performance.now(),
  rss = () => process.memoryUsage.rss(),
): QuietWatch {
  let running = 0;
  let busySince = 0;
  // Busy time so far, completed calls only; the running stretch is added when asked.
  let busyDone = 0;
  const busy = () => busyDone + (running > 0 ? now() - busySince : 0);
  let atOpen = 0;
  // The watch is made once the first instance is open: its RSS counts from then.
  let rssAtOpen = rss();
  let atWindowStart = 0;
  const worked = (total: number) => total - atOpen >= settings.minWorkMs;
  const grown = () => rss() - rssAtOpen >= settings.minRssGrowthBytes;

  const timer =
    settings.windowMs > 0
      ? setInterval(() => {
          const total = busy();
          const inWindow = total - atWindowStart;
          atWindowStart = total;
          if (running === 0 && inWindow <= settings.windowMs * settings.quietShare && worked(total) && grown()) onQuiet();
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
      atOpen = busy();
      rssAtOpen = rss();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
