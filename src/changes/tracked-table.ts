import type { PrismaClient } from '../generated/prisma/client';

/**
 * The acknowledgement ledger shared by every tracked entity (products now; partners, sale orders,
 * purchase orders later). Each tracked table has the columns
 *   revision         bumped by every accepted change
 *   field_revisions  {field: revision that last changed it}
 *   listed_revision  highest revision handed out by a change list
 *   acked_revision   highest revision acknowledged
 *   changed_fields, pending, is_new   derived from the above, stored for cheap listing
 * An acknowledgement covers what was listed, never more: a change that arrives after the
 * listing keeps the record pending with just the newer fields.
 */

export type SqlRunner = Pick<PrismaClient, '$queryRawUnsafe' | '$executeRawUnsafe'>;

/** Table names are constants of the code, never input. */
export type TrackedTableName = 'products' | 'sale_orders' | 'partners' | 'price_items' | 'stocks' | 'purchase_orders';

/** Fields changed after `threshold`, sorted; used when changing and when acknowledging. */
export function pendingFieldsSql(fieldRevisions: string, threshold: string): string {
  return `ARRAY(SELECT f.key FROM jsonb_each_text(${fieldRevisions}) AS f WHERE f.value::int > ${threshold} ORDER BY f.key)`;
}

/**
 * Acknowledges the listed revision of each record (the current one when it was never listed).
 * Idempotent. Returns the records that exist.
 */
export async function acknowledge(
  db: SqlRunner,
  table: TrackedTableName,
  ids: readonly number[],
): Promise<Array<{ id: number; external_id: string | null }>> {
  if (ids.length === 0) return [];
  // Price items and stock entries have no external_id of their own.
  const externalId = table === 'price_items' || table === 'stocks' ? 'NULL::text' : 't.external_id';
  const covered = 'COALESCE(t.listed_revision, t.revision)';
  return db.$queryRawUnsafe<Array<{ id: number; external_id: string | null }>>(
    `UPDATE "${table}" AS t SET
        acked_revision = GREATEST(t.acked_revision, ${covered}),
        changed_fields = ${pendingFieldsSql('t.field_revisions', `GREATEST(t.acked_revision, ${covered})`)},
        pending = t.revision > GREATEST(t.acked_revision, ${covered}),
        is_new = false,
        acknowledged_at = now()
      WHERE t.id IN (SELECT (jsonb_array_elements_text($1::jsonb))::int)
      RETURNING t.id, ${externalId} AS external_id`,
    JSON.stringify(ids),
  );
}
