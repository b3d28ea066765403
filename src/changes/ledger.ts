import type { TrackedTableName } from './tracked-entities';
import { acknowledgeOnChannel } from './channel-ledger';
import type { AckItem, AckOutcome, SqlRunner } from './ledger-types';
import { acknowledgeOnDefault } from './sql/acknowledge-on-default';
import { findExistingIds } from './sql/existing-ids';
import { findFutureRevisions } from './sql/find-future-revisions';

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
    outcome.futureRevisions = await findFutureRevisions(db, table, payload);
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
    const existing = await findExistingIds(db, table, missing);
    const known = new Set(existing.map((r) => r.id));
    outcome.notListed = missing.filter((id) => known.has(id));
    outcome.notFound = missing.filter((id) => !known.has(id));
  }
  return outcome;
}
