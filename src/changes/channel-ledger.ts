import { entityOfTable, type TrackedTableName } from './tracked-entities';
import type { AckItem, AckOutcome, SqlRunner } from './ledger-types';
import { aboveCursorSql, channelAckJoinSql, firstPendingSql, scopeSql, T } from './sql/fragments';
import { sql, trackedTable, trackedTableLiteral } from './sql/sql';

/**
 * The ledger of a channel other than `default` (ADR 0045): a cursor per table in (updated_at, id)
 * order, at or below which the channel has acknowledged every record at its current revision, and
 * `channel_acks`, the revision of each record the channel last acknowledged. A record is pending
 * for the channel when it lies above the cursor and its revision is above the acknowledged one.
 * A push writes nothing here: its new stamp puts the record above every cursor, and the revision it
 * moves to is above every acknowledgement. Channel default stays the records' own columns
 * (ledger.ts); the same rules hold within each channel.
 */

/**
 * Set on the rows of a change list page read for a channel other than default (page.ts) to that
 * channel's id: their ledger columns are already the channel's. A symbol, so it never reaches an
 * answer; a resolver that finds the caller's own channel here uses the row as it is instead of
 * reading the channel's state again (channel-view.ts). Unmarked rows hold default's ledger.
 */
export const LEDGER_CHANNEL: unique symbol = Symbol('ledgerChannel');

/**
 * Acknowledges items for a reader on `channelId`: the same claims as channel default (the revision
 * named, else the revision last listed to this reader; never beyond the current one), written to
 * channel_acks. Must run inside a transaction: acknowledgements of one channel take turns (an
 * advisory lock), so each one's count of records it took out of pending reads the last one's rows.
 * Rows are share-locked in id order, so a push of the same records waits for it (and it for them).
 */
export async function acknowledgeOnChannel(
  tx: SqlRunner,
  table: TrackedTableName,
  reader: { key: string; channelId: number },
  items: readonly AckItem[],
  outcome: AckOutcome,
): Promise<void> {
  const { keyed } = entityOfTable(table);
  const { channelId } = reader;
  const externalId = keyed ? sql`l.external_id` : sql`NULL::text`;
  const payload = JSON.stringify(items.map((i) => ({ id: i.id, revision: i.revision ?? null })));
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext('channel_acks'), ${channelId}::int)::text`;
  // These statements' estimates are far above their work (a few hundred rows each): on a server with
  // JIT (PostgreSQL's default) they would be compiled at every acknowledgement, for longer than they run.
  await tx.$executeRaw`SET LOCAL jit = off`;
  const rows = await tx.$queryRaw<Array<{ id: number; external_id: string | null }>>(sql`
    WITH v AS (SELECT * FROM jsonb_to_recordset(${payload}::jsonb) AS v(id int, revision int)),
     locked AS MATERIALIZED (
       SELECT t.id, t.revision, t.updated_at, ${keyed ? sql`t.external_id,` : sql``} ${scopeSql(table)} AS scope,
              (t.listed_revisions ->> ${reader.key}::text)::int AS listed
         FROM ${trackedTable(table)} AS t WHERE t.id IN (SELECT id FROM v) ORDER BY t.id FOR SHARE
     ),
     claims AS MATERIALIZED (
       SELECT l.id, l.revision, l.scope, ${externalId} AS external_id, LEAST(l.revision, COALESCE(v.revision, l.listed)) AS covered,
              ${aboveCursorSql(table, L, channelId)} AS above, a.acked_revision AS before
         FROM v JOIN locked AS l ON l.id = v.id ${channelAckJoinSql(table, L, channelId)}
        WHERE COALESCE(v.revision, l.listed) IS NOT NULL
     ),
     written AS (
       INSERT INTO channel_acks (channel_id, table_name, record_id, acked_revision)
       SELECT ${channelId}::int, ${trackedTableLiteral(table)}, id, covered FROM claims
       ON CONFLICT (channel_id, table_name, record_id)
       DO UPDATE SET acked_revision = GREATEST(channel_acks.acked_revision, EXCLUDED.acked_revision)
     ),
     counted AS (
       INSERT INTO channel_pending_deltas (channel_id, table_name, scope, delta)
       SELECT ${channelId}::int, ${trackedTableLiteral(table)}, scope, -count(*) FROM claims
        WHERE above AND COALESCE(before, 0) < revision AND GREATEST(before, covered) >= revision
        GROUP BY scope
     )
     SELECT id, external_id FROM claims`);
  outcome.acknowledged = rows;
  if (rows.length > 0) await advanceCursor(tx, table, reader.channelId);
}

/**
 * Moves the channel's cursor over the records above it that the channel has acknowledged at their
 * current revision, up to the first one still pending: an index scan from the cursor that stops at
 * that record (it reads only the records it passes, amortised O(1) per acknowledged record), then
 * one step back from it. Only committed rows are passed: a writer still running stamps beyond every
 * committed row (ADR 0003), so its change lands above the new cursor.
 */
async function advanceCursor(tx: SqlRunner, table: TrackedTableName, channelId: number): Promise<void> {
  await tx.$executeRaw(sql`
    WITH first_pending AS MATERIALIZED (${firstPendingSql(table, channelId, sql`t.updated_at, t.id`)}), passed AS (
       SELECT t.updated_at, t.id FROM ${trackedTable(table)} AS t
        WHERE ${aboveCursorSql(table, T, channelId)}
          AND (t.updated_at, t.id) < (COALESCE((SELECT updated_at FROM first_pending), 'infinity'), COALESCE((SELECT id FROM first_pending), 0))
        ORDER BY t.updated_at DESC, t.id DESC LIMIT 1
     )
     UPDATE channel_cursors AS c SET stamp = passed.updated_at, record_id = passed.id
       FROM passed WHERE c.channel_id = ${channelId}::int AND c.table_name = ${trackedTableLiteral(table)}`);
}

/** The alias of the locked rows in the acknowledgement's claims. */
const L = sql`l`;
