import { createExpensiveSlots } from '../../src/request-bounds/expensive-slots';

/** The counters behind MAX_EXPENSIVE_OPERATIONS(_PER_TOKEN) (ADR 0043). */
describe('expensive slots', () => {
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
    const started = Date.now();
    expect(await slots.acquire('d')).toEqual({ refused: 'busy' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    // The refused caller's own share was given back.
    if ('release' in cSlot) cSlot.release();
    expect('release' in (await slots.acquire('d'))).toBe(true);
  });

  it('rests a process slot for its share of the time the operation held it', async () => {
    const slots = createExpensiveSlots({ perCaller: 10, perProcess: 1, waitMs: 2_000, restRatio: 1 });
    const release = await granted(slots, 'a');
    await new Promise((resolve) => setTimeout(resolve, 150));
    release();
    const started = Date.now();
    const next = await granted(slots, 'b'); // the slot rests about 150 ms before it passes on
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);
    next();
  });
});
