import { entityOfTable, type TrackedTableName } from './tracked-entities';
import { acknowledgeOnChannel } from './channel-ledger';
import type { AckItem, AckOutcome, SqlRunner } from './ledger-types';
import { pendingFieldsSql } from './sql/fragments';
import { empty, sql, trackedTable, trackedTableLiteral } from './sql/sql';

export type { TrackedTableName } from './tracked-entities';
export type { AckItem, AckOutcome, SqlRunner } from './ledger-types';

/**
 * The acknowledgement ledger shared by every tracked entity. Each tracked table has the columns
 *   revision          bumped by every accepted change
 *   field_revisions   {field: revision that last changed it}
 *   listed_revisions  {reader: revision last handed to that reader by a change list}
 *   acked_revision    highest revision acknowledged
 *   changed_fields, pending, is_new   derived from the above, stored for cheap listing
 * An acknowledgement covers a revision the acknowledging reader was shown, never more: the
 * revision it names, or without one the revision that reader's last listing showed it (ADR 0002).
 * A change that arrived later, or that only another reader saw, keeps the record pending with
 * just the newer fields.
 */

/**
 * Who lists a change feed: the key its listings are remembered under (null: a viewer, whose reads
 * mark nothing, ADR 0044) and its channel (null: channel default, the records' own ledger; ADR 0045).
 */
export type FeedListing = { key: string | null; channelId: number | null };
/** Who acknowledges: always a key, since an acknowledgement by id covers what that key was listed. */
export type FeedReader = { key: string; channelId: number | null };

/**
 * Acknowledges each item up to the revision it covers: the revision given, else the revision
 * this reader was last listed. Nothing newer, and nothing another reader was shown. Items naming
 * a revision beyond the record's current one are refused as a whole before anything is written.
 */
export async function acknowledge(
  db: SqlRunner,
  table: TrackedTableName,
  reader: FeedReader,
  items: readonly AckItem[],
): Promise<AckOutcome> {
  const outcome: AckOutcome = { acknowledged: [], notFound: [], notListed: [], futureRevisions: [] };
  if (items.length === 0) return outcome;
  const payload = JSON.stringify(items.map((i) => ({ id: i.id, revision: i.revision ?? null })));
  if (items.some((i) => i.revision != null)) {
    // Revisions only grow, so a check that passes now still holds when the update runs.
    outcome.futureRevisions = await db.$queryRaw<AckOutcome['futureRevisions']>(sql`
      SELECT v.id, v.revision, t.revision AS current
        FROM jsonb_to_recordset(${payload}::jsonb) AS v(id int, revision int) JOIN ${trackedTable(table)} AS t ON t.id = v.id
       WHERE v.revision > t.revision`);
    if (outcome.futureRevisions.length > 0) return outcome;
  }
  if (reader.channelId !== null) {
    await acknowledgeOnChannel(db, table, { key: reader.key, channelId: reader.channelId }, items, outcome);
  } else {
    outcome.acknowledged = await acknowledgeOnDefault(db, table, reader.key, payload);
  }
  if (outcome.acknowledged.length < new Set(items.map((i) => i.id)).size) {
    const done = new Set(outcome.acknowledged.map((r) => r.id));
    const missing = [...new Set(items.map((i) => i.id))].filter((id) => !done.has(id));
    const existing = await db.$queryRaw<Array<{ id: number }>>(sql`
      SELECT id FROM ${trackedTable(table)} WHERE id IN (SELECT (jsonb_array_elements_text(${JSON.stringify(missing)}::jsonb))::int)`);
    const known = new Set(existing.map((r) => r.id));
    outcome.notListed = missing.filter((id) => known.has(id));
    outcome.notFound = missing.filter((id) => !known.has(id));
  }
  return outcome;
}

/** Channel default's acknowledgement: one statement on the records' own ledger columns. */
async function acknowledgeOnDefault(
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
