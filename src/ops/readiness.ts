import type { PrismaClient } from '../generated/prisma/client';
import { readMigrationList } from '../db/migrator';
import { describeDatabaseError } from '../errors/database-errors';

export type Readiness = { ready: boolean; checks: Record<string, 'ok' | 'disabled' | string> };

/** Checks that report trouble without making the replica unready (it still serves). */
const DEGRADED = /^degraded\b/;

/**
 * GET /ready: can this process do its work? The database answers, every committed migration is
 * applied, and the worker (when enabled) has claimed recently. Redis is reported from its
 * connection state, never queried: without it the service still serves (degraded).
 */
export function createReadiness(options: {
  prisma: PrismaClient;
  worker?: { lastClaimAt(): number | undefined; lastClaimError?(): string | undefined; pollIntervalMs: number } | undefined;
  redis?: { status(): string } | undefined;
}) {
  const expected = readMigrationList().then((list) => list.migrationDirectories.map((d) => d.path));
  return async (): Promise<Readiness> => {
    const checks: Readiness['checks'] = {};
    try {
      const applied = await options.prisma.$queryRaw<Array<{ migration_name: string }>>`
        SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
      checks.database = 'ok';
      const names = new Set(applied.map((r) => r.migration_name));
      const missing = (await expected).filter((m) => !names.has(m));
      checks.migrations = missing.length === 0 ? 'ok' : `pending: ${missing.join(', ')}`;
    } catch (error) {
      checks.database = `unreachable: ${describeDatabaseError(error)}`;
    }
    if (!options.worker) checks.worker = 'disabled';
    else {
      const last = options.worker.lastClaimAt();
      // A worker claims at least every poll interval; three missed claims mean it is stuck or cut off.
      const fresh = last !== undefined && Date.now() - last < options.worker.pollIntervalMs * 3 + 5_000;
      const error = options.worker.lastClaimError?.();
      checks.worker = fresh
        ? 'ok'
        : last === undefined && !error
          ? 'not running'
          : `failing: no successful claim${last !== undefined ? ` for ${Math.round((Date.now() - last) / 1000)} s` : ''}${error ? ` (${error})` : ''}`;
    }
    if (options.redis) checks.redis = options.redis.status();
    return { ready: Object.values(checks).every((c) => c === 'ok' || c === 'disabled' || DEGRADED.test(c)), checks };
  };
}
