import { historyEntityType } from '../history-writes';
import type { SqlRunner } from '../ledger-types';
import { createdValuesSql, HISTORY_COLUMNS, pendingFieldsSql } from './fragments';
import { sql, trackedTable } from './sql';
import { columnList, recordsetColumns, rowsJson, V, type PushStamp, type RowToWrite, type TrackedTableSpec } from './tracked-rows';

/** Thrown when another transaction inserted one of the batch's new external ids first. */
export class ConcurrentInsertError extends Error {}

/**
 * Inserts the new rows, gives them their ids, and writes their history (revision 1, no old
 * values) in the same statement.
 */
export async function insertNewRows(tx: SqlRunner, spec: TrackedTableSpec, rows: RowToWrite[], push: PushStamp): Promise<void> {
  if (rows.length === 0) return;
  const inserted = await tx.$queryRaw<Array<{ id: number; external_id: string }>>(sql`
    WITH v AS (
       SELECT * FROM jsonb_to_recordset(${rowsJson(rows, false)}::jsonb)
         AS v(external_id text, data jsonb, field_revisions jsonb, source_updated_at timestamptz${recordsetColumns(spec)})
     ), inserted AS (
       INSERT INTO ${trackedTable(spec.table)} (external_id, data, context, revision, acked_revision, field_revisions,
                                    changed_fields, is_new, pending, created_at, updated_at, source_updated_at${columnList(spec, undefined)})
       SELECT v.external_id, v.data, ${push.context}, 1, 0, v.field_revisions,
              ${pendingFieldsSql(sql`v.field_revisions`, sql`0`)}, true, true, now(), ${push.stamp}::timestamptz, v.source_updated_at${columnList(spec, V)}
         FROM v
       ON CONFLICT (external_id) DO NOTHING
       RETURNING id, external_id
     ), history AS (
       INSERT INTO change_history ${HISTORY_COLUMNS}
       SELECT ${historyEntityType(spec.table)}, i.id, 1, ${push.pushedBy}, ${push.stamp}::timestamptz, NULL, ${createdValuesSql(
         V,
         spec.columns.map((c) => c.name),
       )}
         FROM inserted AS i JOIN v ON v.external_id = i.external_id
     )
     SELECT id, external_id FROM inserted`);
  if (inserted.length !== rows.length) throw new ConcurrentInsertError();
  const ids = new Map(inserted.map((r) => [r.external_id, r.id]));
  for (const row of rows) row.id = ids.get(row.externalId);
}
