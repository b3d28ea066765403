import type { AckOutcome, SqlRunner } from '../ledger-types';
import { entityOfTable, type TrackedTableName } from '../tracked-entities';
import { pendingFieldsSql } from './fragments';
import { empty, sql, trackedTable, trackedTableLiteral } from './sql';

/**
 * Channel default's acknowledgement: one statement on the records' own ledger columns, for the
 * items of `payload` (`[{id, revision}]` as JSON) that `reader` names or was listed.
 */
export async function acknowledgeOnDefault(
  db: SqlRunner,
  table: TrackedTableName,
  reader: string,
  payload: string,
): Promise<AckOutcome['acknowledged']> {
  // Price items and stock entries have no external_id of their own.
  const { keyed } = entityOfTable(table);
  const externalId = keyed ? sql`t.external_id` : sql`NULL::text`;
  // The revision the reader claims to have processed: named, or its last listing (NULL: none).
  const claimed = sql`COALESCE(v.revision, (t.listed_revisions ->> ${reader}::text)::int)`;
  // LEAST ignores NULLs, hence the claim is checked on its own in WHERE.
  const covered = sql`LEAST(t.revision, ${claimed})`;
  const acked = sql`GREATEST(t.acked_revision, ${covered})`;
  // Other channels may still need older values for their own `previous` (ADR 0045).
  const othersNeed = sql`(SELECT min(c.acked_revision) FROM channel_acks AS c WHERE c.table_name = ${trackedTableLiteral(table)} AND c.record_id = t.id)`;
  // Values before changes now covered are of no more use: `previous` is as of the last acknowledgement.
  const prune = !keyed
    ? empty
    : // Nothing to prune (no change since the last acknowledgement) costs nothing; the lowest revision
      // other channels still need is read once per row, not once per entry.
      sql`pending_values = CASE WHEN t.pending_values = '{}'::jsonb THEN t.pending_values ELSE COALESCE((
           SELECT jsonb_object_agg(f.key, kept.entries)
             FROM (SELECT LEAST(${acked}, ${othersNeed}) AS below) AS keep, jsonb_each(t.pending_values) AS f
            CROSS JOIN LATERAL (SELECT jsonb_agg(x ORDER BY (x ->> 0)::int) AS entries FROM jsonb_array_elements(f.value) AS x
                                 WHERE (x ->> 0)::int > keep.below) AS kept
           WHERE kept.entries IS NOT NULL), '{}'::jsonb) END,`;
  // Listings are left in place: one below the acknowledged revision can widen nothing, a repeated
  // ack by id stays a no-op rather than "not listed", and the map holds one entry per reader.
  // Rows are locked in id order first, as pushes lock them: two acknowledgements (or an ack and a
  // push) of the same rows listed in different orders wait for each other instead of deadlocking.
  return db.$queryRaw<AckOutcome['acknowledged']>(sql`
    WITH locked AS MATERIALIZED (
       SELECT id FROM ${trackedTable(table)} WHERE id IN (SELECT (x ->> 'id')::int FROM jsonb_array_elements(${payload}::jsonb) AS x) ORDER BY id FOR UPDATE
     )
     UPDATE ${trackedTable(table)} AS t SET
        acked_revision = ${acked},
        changed_fields = ${pendingFieldsSql(sql`t.field_revisions`, acked)},
        pending = t.revision > ${acked},
        ${prune}
        is_new = false,
        acknowledged_at = now()
       FROM jsonb_to_recordset(${payload}::jsonb) AS v(id int, revision int), locked
      WHERE t.id = v.id AND locked.id = t.id AND ${claimed} IS NOT NULL
      RETURNING t.id, ${externalId} AS external_id`);
}
