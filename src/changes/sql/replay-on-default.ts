import type { SqlRunner } from '../ledger-types';
import type { TrackedTableName } from '../tracked-entities';
import { sql, trackedTable } from './sql';

/** Every field the record ever had (the keys of field_revisions) now changed at the new revision. */
const REPLAY_SET = sql`revision = t.revision + 1,
        field_revisions = COALESCE((SELECT jsonb_object_agg(f.key, t.revision + 1) FROM jsonb_object_keys(t.field_revisions) AS f(key)), '{}'::jsonb),
        changed_fields = ARRAY(SELECT f.key FROM jsonb_object_keys(t.field_revisions) AS f(key) ORDER BY f.key),
        pending = true`;

/**
 * The replay on channel default, of the locked rows `ids` (a JSON array): every field they ever had
 * changed at a new revision, stamped `stamp`. Returns how many rows it replayed.
 */
export async function replayOnDefault(tx: SqlRunner, table: TrackedTableName, ids: string, stamp: Date): Promise<number> {
  return tx.$executeRaw(sql`
    UPDATE ${trackedTable(table)} AS t SET ${REPLAY_SET}, updated_at = ${stamp}::timestamptz
     WHERE t.id IN (SELECT (jsonb_array_elements_text(${ids}::jsonb))::int)`);
}
