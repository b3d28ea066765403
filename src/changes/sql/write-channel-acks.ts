import type { SqlRunner } from '../ledger-types';
import { entityOfTable, type TrackedTableName } from '../tracked-entities';
import { aboveCursorSql, channelAckJoinSql, scopeSql } from './fragments';
import { sql, trackedTable, trackedTableLiteral } from './sql';

/**
 * A channel's acknowledgement of the items of `payload` (`[{id, revision}]` as JSON), one statement:
 * each claim (the revision named, else the revision last listed to `reader.key`; never beyond the
 * current one) is written to channel_acks, and the records it took out of pending are counted off
 * the channel's pending counts. Rows are share-locked in id order, so a push of the same records
 * waits for it (and it for them). The count reads the channel's earlier acknowledgements: the caller
 * holds the channel's turn (channel-ledger.ts). Returns the records acknowledged.
 */
export async function writeChannelAcks(
  tx: SqlRunner,
  table: TrackedTableName,
  reader: { key: string; channelId: number },
  payload: string,
): Promise<Array<{ id: number; external_id: string | null }>> {
  const { keyed } = entityOfTable(table);
  const { channelId } = reader;
  const externalId = keyed ? sql`l.external_id` : sql`NULL::text`;
  return tx.$queryRaw<Array<{ id: number; external_id: string | null }>>(sql`
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
}

/** The alias of the locked rows in the acknowledgement's claims. */
const L = sql`l`;
