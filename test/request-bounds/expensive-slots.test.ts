import { createExpensiveSlots } from '../../src/request-bounds/expensive-slots';

/** The counters behind MAX_EXPENSIVE_OPERATIONS(_PER_TOKEN) (ADR 0043). */
describe('expensive slots', () => {
  // Waits and rests on jest's clock: asserted exactly, however busy the machine.
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());
  const granted = async (slots: ReturnType<typeof createExpensiveSlots>, caller: string) => {
    const slot = await slots.acquire(caller);
    if ('refused' in slot) throw new Error(`refused: ${slot.refused}`);
    return slot.release;
  };

  it('refuses a caller over its share at once, and counts its slots back', async () => {
    const slots = createExpensiveSlots({ perCaller: 2, perProcess: 10, waitMs: 1_000 });
    const first = await granted(slots, 'a');
    await granted(slots, 'a');
    expect(await slots.acquire('a')).toEqual({ refused: 'caller' });
    expect('release' in (await slots.acquire('b'))).toBe(true); // another caller has its own share
    first();
    first(); // releasing twice gives back one slot
    const again = await slots.acquire('a');
    expect('release' in again).toBe(true);
    expect(await slots.acquire('a')).toEqual({ refused: 'caller' });
    expect(slots.running()).toBe(3);
  });

  it("queues past the process's share in arrival order, and gives up after waitMs", async () => {
    const slots = createExpensiveSlots({ perCaller: 10, perProcess: 1, waitMs: 200 });
    const release = await granted(slots, 'a');
    const order: string[] = [];
    const b = slots.acquire('b').then((s) => (order.push('b'), s));
    const c = slots.acquire('c').then((s) => (order.push('c'), s));
    release();
    const bSlot = await b;
    expect(order).toEqual(['b']);
    expect(slots.running()).toBe(1);
    if ('release' in bSlot) bSlot.release();
    const cSlot = await c;
    expect(order).toEqual(['b', 'c']);
    let refused: unknown;
    void slots.acquire('d').then((result) => (refused = result));
    await jest.advanceTimersByTimeAsync(199);
    expect(refused).toBeUndefined(); // still waiting its turn
    await jest.advanceTimersByTimeAsync(1);
    expect(refused).toEqual({ refused: 'busy' });
    // The refused caller's own share was given back.
    if ('release' in cSlot) cSlot.release();
    expect('release' in (await slots.acquire('d'))).toBe(true);
  });

  it('rests a process slot for its share of the time the operation held it', async () => {
    const slots = createExpensiveSlots({ perCaller: 10, perProcess: 1, waitMs: 2_000, restRatio: 1 });
    const release = await granted(slots, 'a');
    await jest.advanceTimersByTimeAsync(150);
    release();
    let next: (() => void) | undefined;
    void granted(slots, 'b').then((r) => (next = r)); // the slot rests 150 ms before it passes on
    await jest.advanceTimersByTimeAsync(149);
    expect(next).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    expect(next).toEqual(expect.any(Function));
    next!();
  });
});
