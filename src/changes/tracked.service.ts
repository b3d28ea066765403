import type { z } from 'zod';
import type { PrismaClient } from '../generated/prisma/client';
import { AppError, notFound, validationFailed } from '../errors/app-error';
import { formatPath } from '../validation/zod-details';
import { plainlyStorable, unstorableDetails, unstorableText } from '../validation/storable';
import type { BatchAckResultShape, RecordReportShape, SyncErrorShape, SyncResultShape } from './results';
import { staleError } from './source-time';
import type { RecordReport } from './upsert';
import { forEachPaced, pace, type Pace } from '../pacing/pace';
import { PUSH_TARGETS, refuseIfPushed } from './push-mode';
import { acknowledge, type AckItem, type AckOutcome, type FeedReader, type SqlRunner, type TrackedTableName } from './ledger';

/** As many as one inbound push can create (a stock list of 10,000 entries). */
export const MAX_IDS_PER_ACK = 10_000;
export const DEFAULT_CONTEXT = 'erp_sync';

/**
 * Validates each record of an inbound batch alone: the valid ones go on, the bad ones become
 * `{index, external_id, field, message}` errors (one per problem). In slices of `p` (10,000
 * records take tens of ms): a request arriving meanwhile is answered between them (ADR 0046).
 */
export async function validateBatch<Schema extends z.ZodType>(
  records: readonly unknown[],
  schema: Schema,
  options: { argName: string; maxItems: number },
  p: Pace = pace(`${options.argName}: validate`),
): Promise<{ valid: Array<{ index: number; value: z.infer<Schema> }>; errors: SyncErrorShape[] }> {
  if (records.length > options.maxItems) {
    throw new AppError('PAYLOAD_TOO_LARGE', `At most ${options.maxItems} ${options.argName} per request; got ${records.length}`, [
      { field: options.argName, message: `At most ${options.maxItems} items` },
    ]);
  }
  const valid: Array<{ index: number; value: z.infer<Schema> }> = [];
  const errors: SyncErrorShape[] = [];
  await forEachPaced(records, p, (raw, index) => {
    // What the database cannot store (NUL, lone surrogates…) is refused here, record by record,
    // rather than failing the whole batch's transaction.
    const clean = plainlyStorable(raw);
    const parsed = schema.safeParse(raw);
    if (parsed.success && clean) {
      valid.push({ index, value: parsed.data });
      return;
    }
    // Only for a bad record: 10,000 good ones would each allocate their path prefix.
    const prefix = `${options.argName}[${index}]`;
    const unstorable = clean ? [] : unstorableDetails(raw, prefix);
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

/** A dry run's answer lists at most this many records (ADR 0028); recordsOmitted counts the rest. */
export const MAX_DRY_RUN_RECORDS = 1000;

/** One valid record's report with its position in the request. */
export type IndexedReport = RecordReport & { index: number; externalId: string | null };

/**
 * The answer of a push: counts, rejected and stale records in errors (code INVALID or STALE),
 * and in a dry run what each record would do.
 */
export function syncResult(
  reports: readonly IndexedReport[],
  rejected: readonly SyncErrorShape[],
  options: { argName: string; dryRun: boolean },
): SyncResultShape {
  const stale = reports.flatMap((r) =>
    r.stale ? [staleError(r.index, r.externalId, `${options.argName}[${r.index}].source_updated_at`, r.stale.sent, r.stale.stored)] : [],
  );
  const invalid = rejected.map((e) => ({ ...e, code: e.code ?? ('INVALID' as const) }));
  const errors = [...invalid, ...stale].sort((a, b) => a.index - b.index);
  return {
    success: errors.length === 0,
    processed: reports.length,
    created: reports.filter((r) => r.action === 'created').length,
    updated: reports.filter((r) => r.action === 'updated').length,
    skipped: stale.length,
    errors,
    dryRun: options.dryRun,
    ...(options.dryRun ? dryRunRecords(reports, invalid) : { records: null, recordsOmitted: null }),
  };
}

function dryRunRecords(reports: readonly IndexedReport[], rejected: readonly SyncErrorShape[]) {
  const byIndex = new Map<number, RecordReportShape>();
  for (const e of rejected) {
    if (!byIndex.has(e.index)) {
      byIndex.set(e.index, { index: e.index, external_id: e.external_id, action: 'rejected', changedFields: [], previous: null });
    }
  }
  for (const r of reports) {
    byIndex.set(r.index, {
      index: r.index,
      external_id: r.externalId,
      action: r.action,
      changedFields: r.changedFields,
      previous: r.previous,
    });
  }
  const all = [...byIndex.values()].sort((a, b) => a.index - b.index);
  return { records: all.slice(0, MAX_DRY_RUN_RECORDS), recordsOmitted: Math.max(0, all.length - MAX_DRY_RUN_RECORDS) };
}

/** Acknowledges one record for `reader` (DELETE …/{id}[?revision=N]); see ledger.ts. */
export async function acknowledgeOne(
  db: SqlRunner,
  table: TrackedTableName,
  label: string,
  reader: FeedReader,
  item: AckItem,
): Promise<{ id: number; external_id: string | null }> {
  if (item.revision != null && item.revision < 1) throw validationFailed([{ field: 'revision', message: 'Must be at least 1' }]);
  const outcome = await ledgerTransaction(db, reader, (tx) => acknowledge(tx, table, reader, [item]));
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
  reader: FeedReader,
  args: { ids?: readonly number[] | null | undefined; items?: readonly AckItem[] | null | undefined },
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
  const outcome = await ledgerTransaction(prisma, reader, (tx) => acknowledge(tx, table, reader, uniqueById(items)));
  refuseFutureRevisions(outcome, (id, revision) => `items[${items.findIndex((i) => i.id === id && i.revision === revision)}].revision`);
  return {
    success: true,
    acknowledged: outcome.acknowledged.length,
    notFound: outcome.notFound,
    notListed: outcome.notListed,
  };
}

/**
 * Where an acknowledgement runs: channel default's is one statement; another channel's takes a
 * few in one transaction (channel-ledger.ts), opened here unless the caller is in one already.
 */
async function ledgerTransaction<T>(db: SqlRunner | PrismaClient, reader: FeedReader, work: (tx: SqlRunner) => Promise<T>): Promise<T> {
  // A channel that pushes is acknowledged by its endpoint's 2xx, not by a token (ADR 0047).
  await refuseIfPushed(db, () => db.$queryRaw(PUSH_TARGETS), reader.channelId);
  if (reader.channelId === null || !('$transaction' in db)) return work(db);
  return db.$transaction((tx) => work(tx));
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
