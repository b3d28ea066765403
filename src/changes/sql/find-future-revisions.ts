import type { AckOutcome, SqlRunner } from '../ledger-types';
import type { TrackedTableName } from '../tracked-entities';
import { sql, trackedTable } from './sql';

/**
 * The items of an acknowledgement (`payload`: `[{id, revision}]` as JSON) naming a revision beyond
 * their record's current one: the reader cannot have seen it, so the acknowledgement is refused as a
 * whole. Revisions only grow, so a check that passes now still holds when the update runs.
 */
export async function findFutureRevisions(db: SqlRunner, table: TrackedTableName, payload: string): Promise<AckOutcome['futureRevisions']> {
  return db.$queryRaw<AckOutcome['futureRevisions']>(sql`
      SELECT v.id, v.revision, t.revision AS current
        FROM jsonb_to_recordset(${payload}::jsonb) AS v(id int, revision int) JOIN ${trackedTable(table)} AS t ON t.id = v.id
       WHERE v.revision > t.revision`);
}
