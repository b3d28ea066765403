import { historyEntityType } from '../history-writes';
import type { SqlRunner } from '../ledger-types';
import { HISTORY_COLUMNS, pendingFieldsSql } from './fragments';
import { column, join, sql, trackedTable } from './sql';
import { recordsetColumns, rowsJson, type PushStamp, type RowToWrite, type TrackedTableSpec } from './tracked-rows';

/** Updates the changed rows and writes one history row each (old and new value of each changed field). */
export async function updateChangedRows(tx: SqlRunner, spec: TrackedTableSpec, rows: RowToWrite[], push: PushStamp): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRaw(sql`
    WITH v AS (
       SELECT * FROM jsonb_to_recordset(${rowsJson(rows, true)}::jsonb)
         AS v(id int, revision int, external_id text, data jsonb, field_revisions jsonb, source_updated_at timestamptz,
              pending_values jsonb, old_values jsonb, new_values jsonb${recordsetColumns(spec)})
     ), history AS (
       INSERT INTO change_history ${HISTORY_COLUMNS}
       SELECT ${historyEntityType(spec.table)}, v.id, v.revision, ${push.pushedBy}, ${push.stamp}::timestamptz, v.old_values, v.new_values FROM v
     )
     UPDATE ${trackedTable(spec.table)} AS t SET
        data = v.data, context = ${push.context}, revision = v.revision, field_revisions = v.field_revisions,
        changed_fields = ${pendingFieldsSql(sql`v.field_revisions`, sql`t.acked_revision`)},
        pending = true, updated_at = ${push.stamp}::timestamptz, source_updated_at = v.source_updated_at, pending_values = v.pending_values${join(
          spec.columns.map((c) => sql`, ${column(c.name)} = v.${column(c.name)}`),
          '',
        )}
       FROM v
      WHERE t.id = v.id`);
}
