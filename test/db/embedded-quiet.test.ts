import { watchForQuiet } from '../../src/db/embedded-quiet';

/*
 * ADR 0039: the idle recycle is asked for after a window in which calls ran for at most a small
 * share of it, and only once the instance has worked since it was opened: run calls for long enough
 * in windows busy enough to be a load.
 */

describe('watching the embedded store for quiet after work', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => {
    jest.useFakeTimers();
    clock = 0;
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

  // Quiet: calls for at most 10 ms of a window; work: the calls of windows where they ran for 50 ms or more.
  const settings = { windowMs: 1_000, quietShare: 0.01, workShare: 0.05, minWorkMs: 500 };

  /** `count` windows, each with one call of `callMs` at its start. */
  const windows = (watch: ReturnType<typeof watchForQuiet>, count: number, callMs: number) => {
    for (let window = 0; window < count; window++) {
      call(watch, callMs);
      elapse(settings.windowMs - callMs);
    }
  };

  it('asks once a quiet window follows enough work, and not again after a fresh instance', () => {
    const onQuiet = jest.fn();
    const watch = watchForQuiet(settings, onQuiet, now);
    call(watch, 600); // work
    elapse(400); // the rest of the busy window
    expect(onQuiet).not.toHaveBeenCalled();
    call(watch, 5); // a poll: well within 1 %
    elapse(995);
    expect(onQuiet).toHaveBeenCalledTimes(1);
    watch.opened(); // the recycle's fresh instance: no work yet
    windows(watch, 5, 5);
    expect(onQuiet).toHaveBeenCalledTimes(1);
    watch.stop();
  });

  it('does not ask while calls take more than the quiet share of the window', () => {
    const onQuiet = jest.fn();
    const watch = watchForQuiet(settings, onQuiet, now);
    windows(watch, 5, 200);
    expect(onQuiet).not.toHaveBeenCalled();
    watch.stop();
  });

  it('does not ask without enough work since the instance was opened', () => {
    const onQuiet = jest.fn();
    const watch = watchForQuiet(settings, onQuiet, now);
    call(watch, 400);
    elapse(2_600);
    expect(onQuiet).not.toHaveBeenCalled();
    watch.stop();
  });

  it('counts a call still running at the window’s end as busy, and never asks under it', () => {
    const onQuiet = jest.fn();
    const watch = watchForQuiet(settings, onQuiet, now);
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

  it('never asks after calls that no window found busy, however much they add up to', () => {
    const onQuiet = jest.fn();
    const watch = watchForQuiet(settings, onQuiet, now);
    windows(watch, 100, 30); // neither quiet (10 ms) nor busy (50 ms): 3 s in all
    windows(watch, 100, 5); // quiet: another 0.5 s
    expect(onQuiet).not.toHaveBeenCalled();
    watch.stop();
  });

  it("does not count the old instance's calls as the fresh instance's work", () => {
    const onQuiet = jest.fn();
    const watch = watchForQuiet(settings, onQuiet, now);
    call(watch, 600); // the old instance's load, until a recycle at the ceiling
    watch.opened();
    elapse(400); // the rest of that window: nothing ran on the fresh instance
    windows(watch, 5, 5);
    expect(onQuiet).not.toHaveBeenCalled();
    watch.stop();
  });

  it('is off with a window of 0', () => {
    const onQuiet = jest.fn();
    const watch = watchForQuiet({ ...settings, windowMs: 0 }, onQuiet, now);
    call(watch, 600);
    elapse(10_000);
    expect(onQuiet).not.toHaveBeenCalled();
  });
});
