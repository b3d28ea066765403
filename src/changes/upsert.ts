import type { Pool } from 'pg';
import { inPgTransaction, type PgRunner } from '../db/pg-transaction';
import { takeChangeClock } from './change-clock';
import { changedFieldNames, mergeFields, type FieldMap } from './diff';
import type { SqlRunner } from './ledger';
import type { PushedBy } from './history-writes';
import { ConcurrentInsertError, insertNewRows } from './sql/insert-new-rows';
import { lockStoredRows } from './sql/lock-stored-rows';
import type { PendingValues, RowToWrite, TrackedTableSpec } from './sql/tracked-rows';
import { updateChangedRows } from './sql/update-changed-rows';
import { updateSourceTimes } from './sql/update-source-times';
import type { RecordAction } from './results';
import { isStale } from './source-time';

export type { TrackedColumn, TrackedTableSpec, PendingValues } from './sql/tracked-rows';

/** One valid inbound record, already validated by its domain. */
export type IncomingRecord = {
  externalId: string;
  /** Column values keyed by column name; undefined means not sent: keep the stored value. */
  columns: Record<string, unknown>;
  fields: FieldMap;
  /** The ERP's write time (ADR 0027); undefined when not sent: applied as always. */
  sourceUpdatedAt?: Date | undefined;
};

export type RecordOutcome = Exclude<RecordAction, 'rejected'>;

/** What one incoming record did: the fields it changed with their values before, or why it was skipped. */
export type RecordReport = {
  action: RecordOutcome;
  changedFields: string[];
  /** Stored values of changedFields before this record; null for a new record. */
  previous: FieldMap | null;
  /** Set when skipped: the stored (newer) source time and the one sent. */
  stale?: { stored: Date; sent: Date };
};

/** A row this batch inserted or changed, as stored after the batch, with the fields it changed. */
export type WrittenRow = {
  id: number;
  externalId: string;
  columns: Record<string, unknown>;
  data: FieldMap;
  changed: ReadonlySet<string>;
};

/** A row as the batch works on it: what will be written, with the changed fields still growing. */
type WorkingState = Omit<RowToWrite, 'changed'> & {
  /** Fields this batch changed; non-empty means the row must be written. */
  changed: Set<string>;
  /** The source time moved on without any field changing: written without touching the ledger. */
  sourceMoved: boolean;
};

const MAX_ATTEMPTS = 3;

/** Compiles only while the pg runner has every method of SqlRunner, which the cast in inTransaction cannot check. */
export const PG_RUNNER_IS_COMPLETE: Exclude<keyof SqlRunner, keyof PgRunner> extends never ? true : never = true;

/** What a push's transaction runs on: the pg pool beneath Prisma's adapter. */
export type TransactionSource = { sql: Pool };

/**
 * Runs `work` in one transaction, retried when another request inserted one of its new external
 * ids first (the retry then sees and updates that row). The transaction runs on the pg pool
 * beneath Prisma's adapter, without Prisma's transaction and raw-query layers (ADR 0031, "History
 * cost"), whose debug history would also keep a push's megabytes of bulk parameters alive.
 */
export async function inTransaction<T>(db: TransactionSource, work: (tx: SqlRunner) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      // The runner has Prisma's raw-query methods and result shapes, without the PrismaPromise brand
      // (and PG_RUNNER_IS_COMPLETE above fails to compile if a method a push may call is missing).
      return await inPgTransaction(db.sql, (runner) => work(runner as unknown as SqlRunner));
    } catch (error) {
      if (!(error instanceof ConcurrentInsertError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

/** Thrown to roll a dry run's transaction back; carries the answer out of it. */
class DryRunRollback<T> extends Error {
  constructor(readonly value: T) {
    super('dry run rolled back');
  }
}

/**
 * `inTransaction` for a push that may be a dry run (ADR 0028): the same work, statements and
 * locks, but the transaction is rolled back at the end, so nothing is stored and the change
 * clock does not move. The answer is what the push would have answered.
 */
export async function inPushTransaction<T>(db: TransactionSource, dryRun: boolean, work: (tx: SqlRunner) => Promise<T>): Promise<T> {
  if (!dryRun) return inTransaction(db, work);
  try {
    await inTransaction(db, async (tx) => {
      throw new DryRunRollback(await work(tx));
    });
  } catch (error) {
    if (error instanceof DryRunRollback) return error.value as T;
    throw error;
  }
  throw new Error('unreachable: a dry run always rolls back');
}

/**
 * Upserts a batch into a tracked table inside the caller's transaction: locks the stored rows,
 * diffs field by field, then inserts the new rows and updates the changed ones with one
 * set-based statement each. Records apply in order, so a later record with the same external id
 * wins, unless its source_updated_at is older than the stored (or an earlier record's) one: then
 * it is skipped (ADR 0027). The rows written get their history (ADR 0031) in the same statements,
 * naming `pushedBy`. Returns one outcome and one report per record and the rows written.
 */
export async function upsertTracked(
  tx: SqlRunner,
  spec: TrackedTableSpec,
  records: readonly IncomingRecord[],
  context: string,
  pushedBy: PushedBy,
): Promise<{ outcomes: RecordOutcome[]; reports: RecordReport[]; written: WrittenRow[] }> {
  if (records.length === 0) return { outcomes: [], reports: [], written: [] };
  const columnList = spec.columns.map((c) => c.name);
  const stored = await lockStoredRows(tx, spec, [...new Set(records.map((r) => r.externalId))]);
  const states = new Map<string, WorkingState>(
    stored.map((row) => [
      row.external_id as string,
      {
        id: row.id as number,
        externalId: row.external_id as string,
        columns: Object.fromEntries(columnList.map((c) => [c, row[c]])),
        data: row.data as FieldMap,
        // Every change of this batch to a stored record shares one new revision.
        revision: (row.revision as number) + 1,
        fieldRevisions: row.field_revisions as Record<string, number>,
        changed: new Set<string>(),
        before: {},
        sourceUpdatedAt: row.source_updated_at as Date | null,
        sourceMoved: false,
        pendingValues: row.pending_values as PendingValues,
      },
    ]),
  );

  const reports = records.map((record) => applyRecord(states, record, columnList));
  const all = [...states.values()];
  // Partition before inserting: the insert gives the new rows their ids.
  const fresh = all.filter((s) => s.id === undefined);
  const updated = all.filter((s) => s.id !== undefined && s.changed.size > 0);
  if (fresh.length + updated.length > 0) {
    const stamp = await takeChangeClock(tx, spec.table);
    await insertNewRows(tx, spec, fresh, { context, stamp, pushedBy });
    await updateChangedRows(tx, spec, updated, { context, stamp, pushedBy });
  }
  await updateSourceTimes(
    tx,
    spec,
    all.filter((s) => s.id !== undefined && s.changed.size === 0 && s.sourceMoved),
  );
  const written = [...fresh, ...updated].map(({ id, externalId, columns, data, changed }) => ({
    id: id!,
    externalId,
    columns,
    data,
    changed,
  }));
  return { outcomes: reports.map((r) => r.action), reports, written };
}

function applyRecord(states: Map<string, WorkingState>, record: IncomingRecord, columnList: string[]): RecordReport {
  const sentColumns = Object.fromEntries(columnList.filter((c) => record.columns[c] !== undefined).map((c) => [c, record.columns[c]]));
  const state = states.get(record.externalId);
  const sent = record.sourceUpdatedAt;
  if (state && isStale(sent, state.sourceUpdatedAt)) {
    return { action: 'skipped', changedFields: [], previous: null, stale: { stored: state.sourceUpdatedAt!, sent: sent! } };
  }
  if (state && sent && (state.sourceUpdatedAt === null || sent > state.sourceUpdatedAt)) {
    state.sourceUpdatedAt = sent;
    state.sourceMoved = true;
  }
  if (!state) {
    const fieldNames = [...Object.keys(record.fields), ...Object.keys(sentColumns)];
    states.set(record.externalId, {
      id: undefined,
      externalId: record.externalId,
      columns: Object.fromEntries(columnList.map((c) => [c, sentColumns[c] ?? null])),
      data: record.fields,
      revision: 1,
      fieldRevisions: Object.fromEntries(fieldNames.map((f) => [f, 1])),
      changed: new Set(fieldNames),
      before: {},
      sourceUpdatedAt: sent ?? null,
      sourceMoved: false,
      pendingValues: {},
    });
    return { action: 'created', changedFields: [...new Set(fieldNames)].sort(), previous: null };
  }
  const changed = [...changedFieldNames(state.data, record.fields), ...changedFieldNames(state.columns, sentColumns)];
  if (changed.length === 0) return { action: 'unchanged', changedFields: [], previous: {} };
  const previous = Object.fromEntries(
    changed.map((f) => [f, Object.hasOwn(state.columns, f) ? state.columns[f] : (state.data[f] ?? null)]),
  );
  state.data = mergeFields(state.data, record.fields);
  state.columns = mergeFields(state.columns, sentColumns);
  for (const field of changed) {
    state.fieldRevisions[field] = state.revision;
    state.changed.add(field);
    // The history's old value is the stored one, before the first record of this batch that changed it.
    if (state.id !== undefined && !Object.hasOwn(state.before, field)) state.before[field] = previous[field];
    // The value before this revision, once per revision: what `previous` shows until acknowledged.
    if (state.id === undefined) continue;
    const values = (state.pendingValues[field] ??= []);
    if (values[values.length - 1]?.[0] !== state.revision) values.push([state.revision, previous[field]]);
  }
  return { action: 'updated', changedFields: [...changed].sort(), previous };
}
