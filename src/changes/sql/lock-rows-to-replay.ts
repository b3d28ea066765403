import type { SqlRunner } from '../ledger-types';
import type { TrackedTableName } from '../tracked-entities';
import { sql, trackedTable, type Sql } from './sql';

/**
 * Locks the rows a replay selects (`where`, a condition on the row `t`), FOR UPDATE in id order as
 * every writer of the ledger locks them; returns their ids.
 */
export async function lockRowsToReplay(tx: SqlRunner, table: TrackedTableName, where: Sql): Promise<Array<{ id: number }>> {
  return tx.$queryRaw<Array<{ id: number }>>(sql`SELECT t.id FROM ${trackedTable(table)} AS t WHERE ${where} ORDER BY t.id FOR UPDATE`);
}
