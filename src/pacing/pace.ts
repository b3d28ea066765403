import { channel } from 'node:diagnostics_channel';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Lets a long synchronous job (a 10,000-entry push: its parse, validation, parameters and answer)
 * give the event loop back every `sliceMs`, so that a poll or `/health` arriving meanwhile waits for
 * one slice, not for the whole push (issue 29, ADR 0046). `setImmediate` runs after the poll phase:
 * requests already received are parsed and started before the job goes on. The job itself keeps
 * everything it holds (one transaction, one answer); only its CPU is spread out.
 */
export type Pace = {
  /** What the job is doing now (a phase of a push), published with each yield. */
  phase: string;
  /** True when the current slice has used its time: `await pace.yield()` before going on. */
  due(): boolean;
  /** Gives the event loop one turn and starts a new slice. */
  yield(): Promise<void>;
  /** `yield()` when due; for the places between steps (a promise per call, so not per entry). */
  step(): Promise<void>;
};

/** Slices of at most this many ms by default: well under the 10 ms `/health` target and the poll's 50. */
export const SLICE_MS = 4;

/** The slice length of new paces; a test sets 0 (a yield at every check) to see the order of events on any machine. */
export const paceSettings = { sliceMs: SLICE_MS };

/**
 * Each yield is published here as `{ phase }` (node:diagnostics_channel: nothing is done without a
 * subscriber), so that a test can tell what a request overtook, by order of events, not by timing.
 */
export const PACE_CHANNEL = 'sync-gateway:pace';
const yields = channel(PACE_CHANNEL);

export function pace(phase: string, sliceMs = paceSettings.sliceMs): Pace {
  let sliceStart = performance.now();
  const self: Pace = {
    phase,
    due: () => performance.now() - sliceStart >= sliceMs,
    async yield() {
      if (yields.hasSubscribers) yields.publish({ phase: self.phase });
      await nextTurn();
      sliceStart = performance.now();
    },
    step: () => (self.due() ? self.yield() : Promise.resolve()),
  };
  return self;
}

/** How often loops over entries ask `due()`: a clock read per entry would cost more than it saves. */
export const CHECK_EVERY = 64;

/** `fn` over every item in order, yielding between slices. */
export async function forEachPaced<T>(items: readonly T[], p: Pace, fn: (item: T, index: number) => void): Promise<void> {
  for (let i = 0; i < items.length; i++) {
    if (i % CHECK_EVERY === 0 && i > 0 && p.due()) await p.yield();
    fn(items[i]!, i);
  }
}

/**
 * JSON.stringify of `items.map(as)` in chunks, yielding between them: the same text as one
 * `JSON.stringify` for plain data (what a push's parameters are), without one long stretch. Chunks,
 * not elements: one JSON.stringify call per element costs several times the whole array's.
 */
export async function stringifyPaced<T>(items: readonly T[], p: Pace, as: (item: T) => unknown = (item) => item): Promise<string> {
  const parts: string[] = [];
  for (let i = 0; i < items.length; i += STRINGIFY_CHUNK) {
    if (i > 0 && p.due()) await p.yield();
    // Each chunk is a non-empty array: its text without the brackets is its elements.
    parts.push(JSON.stringify(items.slice(i, i + STRINGIFY_CHUNK).map((item) => as(item))).slice(1, -1));
  }
  return `[${parts.join(',')}]`;
}

const STRINGIFY_CHUNK = 256;
