import type { TrackedTableName } from './tracked-entities';
import type { AckItem, AckOutcome, SqlRunner } from './ledger-types';
import { advanceChannelCursor } from './sql/advance-channel-cursor';
import { writeChannelAcks } from './sql/write-channel-acks';

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
 * Then the channel's cursor moves over what is now acknowledged.
 */
export async function acknowledgeOnChannel(
  tx: SqlRunner,
  table: TrackedTableName,
  reader: { key: string; channelId: number },
  items: readonly AckItem[],
  outcome: AckOutcome,
): Promise<void> {
  const { channelId } = reader;
  const payload = JSON.stringify(items.map((i) => ({ id: i.id, revision: i.revision ?? null })));
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext('channel_acks'), ${channelId}::int)::text`;
  // These statements' estimates are far above their work (a few hundred rows each): on a server with
  // JIT (PostgreSQL's default) they would be compiled at every acknowledgement, for longer than they run.
  await tx.$executeRaw`SET LOCAL jit = off`;
  const rows = await writeChannelAcks(tx, table, reader, payload);
  outcome.acknowledged = rows;
  if (rows.length > 0) await advanceChannelCursor(tx, table, reader.channelId);
}
