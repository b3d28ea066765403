import type { SqlRunner } from '../ledger-types';
import { sql, trackedTable } from './sql';
import type { RowToWrite, TrackedTableSpec } from './tracked-rows';

/**
 * Rows whose data did not change but whose source time moved on keep the newer time, so that a
 * delayed older push is still recognised as stale. Neither revision nor updated_at moves: there
 * is nothing new for the webshop, hence no change clock and no history either (the rows are locked already).
 */
export async function updateSourceTimes(tx: SqlRunner, spec: TrackedTableSpec, rows: RowToWrite[]): Promise<void> {
  if (rows.length === 0) return;
  const times = JSON.stringify(rows.map((s) => ({ id: s.id, source_updated_at: s.sourceUpdatedAt })));
  await tx.$executeRaw(sql`
    UPDATE ${trackedTable(spec.table)} AS t SET source_updated_at = v.source_updated_at
      FROM jsonb_to_recordset(${times}::jsonb) AS v(id int, source_updated_at timestamptz)
     WHERE t.id = v.id`);
}
