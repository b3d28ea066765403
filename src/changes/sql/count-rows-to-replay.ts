import type { SqlRunner } from '../ledger-types';
import type { TrackedTableName } from '../tracked-entities';
import { sql, trackedTable, type Sql } from './sql';

/** Counts the rows a replay would touch (`where`, a condition on the row `t`). */
export async function countRowsToReplay(db: SqlRunner, table: TrackedTableName, where: Sql): Promise<number> {
  const rows = await db.$queryRaw<Array<{ n: number }>>(sql`SELECT count(*)::int AS n FROM ${trackedTable(table)} AS t WHERE ${where}`);
  return rows[0]?.n ?? 0;
}
