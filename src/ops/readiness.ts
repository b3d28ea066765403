import type { PrismaClient } from '../generated/prisma/client';
import { readMigrationList } from '../db/migrator';

export type Readiness = { ready: boolean; checks: Record<string, 'ok' | 'disabled' | string> };

/**
 * GET /ready: can this process do its work? The database answers, every committed migration is
 * applied, and the worker (when enabled) has run recently.
 */
export function createReadiness(options: {
  prisma: PrismaClient;
  worker?: { lastActiveAt(): number | undefined; pollIntervalMs: number } | undefined;
}) {
  const expected = readMigrationList().then((list) => list.migrationDirectories.map((d) => d.path));
  return async (): Promise<Readiness> => {
    const checks: Readiness['checks'] = {};
    try {
      const applied = await options.prisma.$queryRawUnsafe<Array<{ migration_name: string }>>(
        'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      );
      checks.database = 'ok';
      const names = new Set(applied.map((r) => r.migration_name));
      const missing = (await expected).filter((m) => !names.has(m));
      checks.migrations = missing.length === 0 ? 'ok' : `pending: ${missing.join(', ')}`;
    } catch (error) {
      checks.database = `unreachable: ${(error as Error).message.split('\n')[0]}`;
    }
    if (!options.worker) checks.worker = 'disabled';
    else {
      const last = options.worker.lastActiveAt();
      // A worker loop wakes at least every poll interval; three missed beats mean it is stuck.
      checks.worker = last !== undefined && Date.now() - last < options.worker.pollIntervalMs * 3 + 5_000 ? 'ok' : 'not running';
    }
    return { ready: Object.values(checks).every((c) => c === 'ok' || c === 'disabled'), checks };
  };
}
