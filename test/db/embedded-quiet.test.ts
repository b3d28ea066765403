import { watchForQuiet } from '../../src/db/embedded-quiet';

/*
 * ADR 0039: the idle recycle is asked for after a window in which calls ran for at most a small
 * share of it, and only once the instance has worked and the process's RSS has grown since it was
 * opened.
 */

describe('watching the embedded store for quiet after work', () => {
  let clock = 0;
  const now = () => clock;
  // The process's RSS as the watch reads it. `watching` grows it past the set amount at once, so
  // that only work and quiet decide there.
  let rssBytes = 0;
  const rss = () => rssBytes;
  const MB = 1024 * 1024;
  beforeEach(() => {
    jest.useFakeTimers();
    clock = 0;
    rssBytes = 0;
  });
  afterEach(() => jest.useRealTimers());

  /** Advances both clocks: the window's timer and the busy-time clock. */
  const elapse = (ms: number) => {
    clock += ms;
    jest.advanceTimersByTime(ms);
  };
  const call = (watch: ReturnType<typeof watchForQuiet>, ms: number) => {
    watch.callStarted();
    elapse(ms);
    watch.callEnded();
  };

  const settings = { windowMs: 1_000, quietShare: 0.01, minWorkMs: 500, minRssGrowthBytes: 10 * MB };
  const watching = (onQuiet: () => void, overrides: Partial<typeof settings> = {}) => {
    const watch = watchForQuiet({ ...settings, ...overrides }, onQuiet, now, rss);
    rssBytes += 100 * MB;
    return watch;
  };

  it('asks once a quiet window follows enough work, and not again after a fresh instance', () => {
    const onQuiet = jest.fn();
    const watch = watching(onQuiet);
    call(watch, 600); // work
    elapse(400); // the rest of the busy window
    expect(onQuiet).not.toHaveBeenCalled();
    call(watch, 5); // a poll: well within 1 %
    elapse(995);
    expect(onQuiet).toHaveBeenCalledTimes(1);
    watch.opened(); // the recycle's fresh instance: no work yet
    rssBytes += 100 * MB; // nor is memory what stops it here
    for (let window = 0; window < 5; window++) {
      call(watch, 5);
      elapse(995);
    }
    expect(onQuiet).toHaveBeenCalledTimes(1);
    watch.stop();
  });

  it('does not ask while calls take more than the quiet share of the window', () => {
    const onQuiet = jest.fn();
    const watch = watching(onQuiet);
    for (let window = 0; window < 5; window++) {
      call(watch, 200);
      elapse(800);
    }
    expect(onQuiet).not.toHaveBeenCalled();
    watch.stop();
  });

  it('does not ask without enough work since the instance was opened', () => {
    const onQuiet = jest.fn();
    const watch = watching(onQuiet);
    call(watch, 400);
    elapse(2_600);
    expect(onQuiet).not.toHaveBeenCalled();
    watch.stop();
  });

  it('counts a call still running at the window’s end as busy, and never asks under it', () => {
    const onQuiet = jest.fn();
    const watch = watching(onQuiet);
    call(watch, 600);
    elapse(1_400);
    watch.callStarted(); // a long call across windows
    elapse(3_000);
    const asked = onQuiet.mock.calls.length;
    elapse(2_000);
    expect(onQuiet).toHaveBeenCalledTimes(asked);
    watch.callEnded();
    watch.stop();
  });

  it('is off with a window of 0', () => {
    const onQuiet = jest.fn();
    const watch = watching(onQuiet, { windowMs: 0 });
    call(watch, 600);
    elapse(10_000);
    expect(onQuiet).not.toHaveBeenCalled();
  });

  it('does not ask while the RSS has not grown by the set amount since the instance opened', () => {
    const onQuiet = jest.fn();
    const watch = watchForQuiet(settings, onQuiet, now, rss);
    rssBytes += 9 * MB; // grown, but less than 10 MB
    call(watch, 600);
    elapse(400);
    for (let window = 0; window < 5; window++) {
      call(watch, 5);
      elapse(995);
    }
    expect(onQuiet).not.toHaveBeenCalled();
    rssBytes += 1 * MB; // now 10 MB above its reading when the watch began
    call(watch, 5);
    elapse(995);
    expect(onQuiet).toHaveBeenCalledTimes(1);

    // A fresh instance: its RSS counts from its opening, and work alone is not enough.
    watch.opened();
    call(watch, 600);
    elapse(400);
    for (let window = 0; window < 5; window++) {
      call(watch, 5);
      elapse(995);
    }
    expect(onQuiet).toHaveBeenCalledTimes(1);
    rssBytes += 10 * MB;
    call(watch, 5);
    elapse(995);
    expect(onQuiet).toHaveBeenCalledTimes(2);
    watch.stop();
  });
});
