/*
 * Kept apart from the GraphQL types (tracked-fields.ts) so that the delivery worker's thread, which
 * builds change webhooks' records (ADR 0047), computes `previous` without loading the schema builder.
 */

/**
 * `previous` of a change record (ADR 0028): for each changed field, its value as of the reader's
 * channel's last acknowledgement, i.e. the value before its first change after it (entries at or
 * below it are kept only for other channels, ADR 0045). Null for a new record; a field only
 * re-sent by a resync (its value did not change) has none.
 */
export function previousValues(row: {
  isNew: boolean;
  changedFields: string[];
  pendingValues: unknown;
  ackedRevision: number;
}): Record<string, unknown> | null {
  if (row.isNew) return null;
  const pending = (row.pendingValues ?? {}) as Record<string, Array<[number, unknown]>>;
  const previous: Record<string, unknown> = {};
  for (const field of row.changedFields) {
    const entry = pending[field]?.find(([revision]) => revision > row.ackedRevision);
    if (entry) previous[field] = entry[1];
  }
  return previous;
}
