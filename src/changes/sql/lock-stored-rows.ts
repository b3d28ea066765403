import type { SqlRunner } from '../ledger-types';
import { join, sql, trackedTable } from './sql';
import { selectedColumn, type TrackedTableSpec } from './tracked-rows';

/**
 * The stored rows of a push's external ids with what the push diffs and writes (the spec's columns,
 * an enum as its text), locked FOR UPDATE in id order, as acknowledgements lock them (so the two
 * wait for each other instead of deadlocking), and before the push takes its change clock
 * (change-clock.ts).
 */
export async function lockStoredRows(
  tx: SqlRunner,
  spec: TrackedTableSpec,
  externalIds: readonly string[],
): Promise<Array<Record<string, unknown>>> {
  return tx.$queryRaw<Array<Record<string, unknown>>>(sql`
    SELECT id, external_id, data, revision, field_revisions, source_updated_at, pending_values${join(
      spec.columns.map((c) => sql`, ${selectedColumn(c)}`),
      '',
    )}
      FROM ${trackedTable(spec.table)}
     WHERE external_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(externalIds)}::jsonb))
     ORDER BY id FOR UPDATE`);
}
