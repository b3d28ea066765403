import type { SqlRunner } from '../ledger-types';
import type { TrackedTableName } from '../tracked-entities';
import { sql, trackedTable } from './sql';

/**
 * Which of `ids` are records of `table`: an acknowledgement tells the ids it did not acknowledge
 * apart, records never listed to the reader from ids of no record.
 */
export async function findExistingIds(db: SqlRunner, table: TrackedTableName, ids: readonly number[]): Promise<Array<{ id: number }>> {
  return db.$queryRaw<Array<{ id: number }>>(sql`
      SELECT id FROM ${trackedTable(table)} WHERE id IN (SELECT (jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))::int)`);
}
