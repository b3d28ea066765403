import { Client } from 'pg';
import type { Logger } from 'pino';
import { migratePostgres } from '../db/migrations';
import type { Store } from '../db/store';
import {
  appliedMigrations,
  copyTables,
  inSnapshot,
  inTransaction,
  pendingCountDifferences,
  pendingCounts,
  tablesHoldingRows,
  type CopiedTable,
} from './table-copy';

/**
 * `sync-gateway export --to postgresql://…` (docs/adr/0026): every table of the store, row for
 * row, into an empty PostgreSQL database that gets this build's migrations first. It reads one
 * REPEATABLE READ snapshot through a connection of the store's pool, so it runs while the server
 * serves (the CLI attaches to the running cluster). Ids, change stamps, acknowledgements, queue
 * states and encrypted secrets are copied as they are, and every sequence continues where the
 * source's stopped, so the installation carries on once DATABASE_URL points at the new database.
 */

export class ExportRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportRefusedError';
  }
}

export type ExportedTable = CopiedTable;

export async function exportToPostgres(store: Pick<Store, 'sql'>, targetUrl: string, logger?: Logger): Promise<ExportedTable[]> {
  await refuseNonEmptyTarget(targetUrl);
  await migratePostgres(targetUrl, logger);
  const source = await store.sql.connect();
  const target = new Client({ connectionString: targetUrl, application_name: 'sync-gateway-export' });
  try {
    await target.connect();
    return await inSnapshot(source, async () => {
      const [theirs, ours] = [await appliedMigrations(source), await appliedMigrations(target)];
      if (theirs.join() !== ours.join()) {
        throw new ExportRefusedError(
          'the store is not migrated to this build (run sync-gateway migrate, or let the server start once), then export again',
        );
      }
      // One transaction: an export that fails half-way leaves the target as empty as it found it.
      return inTransaction(target, 'BEGIN', async () => {
        const copied = await copyTables(source, target);
        const differences = pendingCountDifferences(await pendingCounts(source), await pendingCounts(target));
        if (differences.length > 0) logger?.warn({ differences }, 'pending counts recounted from the rows differ from the source counters');
        return copied;
      });
    });
  } finally {
    source.release();
    await target.end().catch(() => undefined);
  }
}

/** Empty means: no table of the public schema holds a row (a database migrated but unused is fine). */
async function refuseNonEmptyTarget(targetUrl: string): Promise<void> {
  const client = new Client({ connectionString: targetUrl, application_name: 'sync-gateway-export' });
  await client.connect();
  try {
    const holding = await tablesHoldingRows(client);
    if (holding.length > 0) {
      throw new ExportRefusedError(
        `the target database is not empty (rows in ${holding.join(', ')}); export only into a new, empty database`,
      );
    }
  } finally {
    await client.end();
  }
}
