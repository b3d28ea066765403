import type { z } from 'zod';
import type { PrismaClient } from '../generated/prisma/client';
import { AppError, notFound, validationFailed } from '../errors/app-error';
import { formatPath } from '../errors/zod-details';
import { unstorableDetails, unstorableText } from '../validation/storable';
import type { BatchAckResultShape, SyncErrorShape, SyncResultShape } from './results';
import type { RecordOutcome } from './tracked-sync';
import { acknowledge, type AckItem, type AckOutcome, type SqlRunner, type TrackedTableName } from './tracked-table';

/** As many as one inbound push can create (a stock list of 10,000 entries). */
export const MAX_IDS_PER_ACK = 10_000;
export const DEFAULT_CONTEXT = 'erp_sync';

/**
 * Validates each record of an inbound batch alone: the valid ones go on, the bad ones become
 * `{index, external_id, field, message}` errors (one per problem).
 */
export function validateBatch<Schema extends z.ZodType>(
  records: readonly unknown[],
  schema: Schema,
  options: { argName: string; maxItems: number },
): { valid: Array<{ index: number; value: z.infer<Schema> }>; errors: SyncErrorShape[] } {
  if (records.length > options.maxItems) {
    throw new AppError('PAYLOAD_TOO_LARGE', `At most ${options.maxItems} ${options.argName} per request; got ${records.length}`, [
      { field: options.argName, message: `At most ${options.maxItems} items` },
    ]);
  }
  const valid: Array<{ index: number; value: z.infer<Schema> }> = [];
  const errors: SyncErrorShape[] = [];
  records.forEach((raw, index) => {
    const prefix = `${options.argName}[${index}]`;
    // What the database cannot store (NUL, lone surrogates…) is refused here, record by record,
    // rather than failing the whole batch's transaction.
    const unstorable = unstorableDetails(raw, prefix);
    const parsed = schema.safeParse(raw);
    if (parsed.success && unstorable.length === 0) {
      valid.push({ index, value: parsed.data });
      return;
    }
    const externalId = (raw as { external_id?: unknown } | null)?.external_id;
    const problems = [
      ...unstorable,
      ...(parsed.error?.issues ?? []).map((issue) => ({ field: formatPath(issue.path, prefix), message: issue.message })),
    ];
    for (const { field, message } of problems) {
      errors.push({
        index,
        // An unstorable external id is not echoed back either.
        external_id: typeof externalId === 'string' && unstorableText(externalId) === undefined ? externalId : null,
        field,
        message,
      });
    }
  });
  return { valid, errors };
}

export function syncResult(outcomes: readonly RecordOutcome[], errors: SyncErrorShape[]): SyncResultShape {
  return {
    success: errors.length === 0,
    processed: outcomes.length,
    created: outcomes.filter((o) => o === 'created').length,
    updated: outcomes.filter((o) => o === 'updated').length,
    errors: [...errors].sort((a, b) => a.index - b.index),
  };
}

/** Acknowledges one record for `reader` (DELETE …/{id}[?revision=N]); see tracked-table.ts. */
export async function acknowledgeOne(
  db: SqlRunner,
  table: TrackedTableName,
  label: string,
  reader: string,
  item: AckItem,
): Promise<{ id: number; external_id: string | null }> {
  if (item.revision != null && item.revision < 1) throw validationFailed([{ field: 'revision', message: 'Must be at least 1' }]);
  const outcome = await acknowledge(db, table, reader, [item]);
  if (outcome.notFound.length > 0) throw notFound(label, item.id);
  refuseFutureRevisions(outcome, () => 'revision');
  if (outcome.notListed.length > 0) {
    throw new AppError(
      'CONFLICT',
      `${label} ${item.id} was never listed to this client: list it first, or acknowledge the revision you processed (?revision=N)`,
      [{ field: 'revision', message: 'Required for a record this client was not listed' }],
    );
  }
  return outcome.acknowledged[0]!;
}

/**
 * Acknowledges many records for `reader`: `ids` (each covering what this reader was last listed)
 * or `items` with the revision processed. One statement whatever the count.
 */
export async function acknowledgeMany(
  prisma: PrismaClient,
  table: TrackedTableName,
  reader: string,
  args: { ids?: readonly number[] | null; items?: readonly AckItem[] | null },
): Promise<BatchAckResultShape> {
  if ((args.ids == null) === (args.items == null)) {
    throw validationFailed([{ field: 'ids', message: 'Give exactly one of ids and items' }]);
  }
  const field = args.ids != null ? 'ids' : 'items';
  const items: readonly AckItem[] = args.items ?? args.ids!.map((id) => ({ id }));
  if (items.length > MAX_IDS_PER_ACK) {
    throw new AppError('PAYLOAD_TOO_LARGE', `At most ${MAX_IDS_PER_ACK} ${field} per request; got ${items.length}`, [
      { field, message: `At most ${MAX_IDS_PER_ACK} items` },
    ]);
  }
  if (items.length === 0) throw validationFailed([{ field, message: 'Must list at least one id' }]);
  const badRevisions = items.flatMap((item, i) =>
    item.revision != null && item.revision < 1 ? [{ field: `items[${i}].revision`, message: 'Must be at least 1' }] : [],
  );
  if (badRevisions.length > 0) throw validationFailed(badRevisions);
  const outcome = await acknowledge(prisma, table, reader, uniqueById(items));
  refuseFutureRevisions(outcome, (id, revision) => `items[${items.findIndex((i) => i.id === id && i.revision === revision)}].revision`);
  return {
    success: true,
    acknowledged: outcome.acknowledged.length,
    notFound: outcome.notFound,
    notListed: outcome.notListed,
  };
}

/** One item per id; of two revisions for one id, the higher one (the reader processed it). */
function uniqueById(items: readonly AckItem[]): AckItem[] {
  const byId = new Map<number, AckItem>();
  for (const item of items) {
    const seen = byId.get(item.id);
    if (!seen || (item.revision != null && (seen.revision == null || item.revision > seen.revision))) byId.set(item.id, item);
  }
  return [...byId.values()];
}

function refuseFutureRevisions(outcome: AckOutcome, fieldOf: (id: number, revision: number) => string): void {
  if (outcome.futureRevisions.length === 0) return;
  throw validationFailed(
    outcome.futureRevisions.map(({ id, revision, current }) => ({
      field: fieldOf(id, revision),
      message: `Record ${id} is at revision ${current}; revision ${revision} was never listed`,
    })),
  );
}
