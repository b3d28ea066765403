import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full collection of the calling thread's heap, on demand. The embedded store's thread calls it
 * between closing a PGlite instance and opening the next (the recycle, ADR 0035): the closed
 * instance's WebAssembly memory (150–220 MB) is only given back when V8 collects it, and left to V8
 * it is collected after the fresh instance has taken its own, so both were resident at once.
 *
 * `gc` is exposed by the V8 flag at run time and taken from a fresh context, as Jest's leak
 * detector does; the flag is switched off again, so no other context sees a global `gc`.
 */
export function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('gc');
  setFlagsFromString('--no-expose-gc');
  if (typeof gc !== 'function') throw new Error('V8 did not expose gc: the recycle cannot free memory before reopening');
  return () => void gc();
}
