import { Debug as clientDebug } from '@prisma/client/runtime/client';
import { DEBUG_HISTORY_LENGTH, EVICTION_NAMESPACE, releaseAdapterParameters } from './adapter-debug-history';

/**
 * Prisma keeps the arguments of the last 100 debug calls, whether debugging is enabled or not, for
 * its crash reports (`argsHistory` in @prisma/debug). There are two such histories in the process:
 * the client runtime bundles its own copy and logs every raw statement's plan, and the driver
 * adapters (pg and PGlite, through @prisma/driver-adapter-utils, deduplicated by the `overrides` in
 * package.json) log every query. Both hold the statement's parameters, and our bulk statements pass
 * whole lists as one JSON parameter of 1 to 10 MB: measured, that kept 60+ MB of heap alive under
 * a stream of stock lists, and enough to exhaust the heap under repeated 10 MB product pushes.
 *
 * Calling a debug logger with a small argument pushes a small entry, and 100 of them push every
 * older entry out. That costs microseconds, so it runs after every bulk statement. On PGlite the
 * adapter's history is in the store's thread, which evicts it there (adapter-debug-history.ts).
 * test/db/prisma-debug-history.test.ts fails when a Prisma upgrade changes any of this.
 */
const evictClientEntry = clientDebug(EVICTION_NAMESPACE);

export function releaseBulkParameters(): void {
  for (let i = 0; i < DEBUG_HISTORY_LENGTH; i++) evictClientEntry('-');
  releaseAdapterParameters();
}
