/**
 * The plain result shapes of the change feed: what services return and the GraphQL types in
 * src/changes/results.schema.ts expose. They live with the domain so that services never import
 * the GraphQL edge.
 */

export type PageMetaShape = { total: number; limit: number; offset: number };

/** `{payload, meta}`, the envelope of every list (SPEC 2.2). */
export type PageShape<Item> = { payload: Item[]; meta: PageMetaShape };

/** INVALID: the record was rejected; STALE: it is older than the stored one and was skipped (ADR 0027). */
export type SyncErrorCode = 'INVALID' | 'STALE';

export type SyncErrorShape = { index: number; external_id: string | null; field: string; message: string; code?: SyncErrorCode };

/** What a push did, or in a dry run would do, to one record (ADR 0028). */
export type RecordAction = 'created' | 'updated' | 'unchanged' | 'skipped' | 'rejected';

export type RecordReportShape = {
  index: number;
  external_id: string | null;
  action: RecordAction;
  changedFields: string[];
  /** The stored values of changedFields before the push; null for a new or rejected record. */
  previous: Record<string, unknown> | null;
};

export type SyncResultShape = {
  success: boolean;
  processed: number;
  created: number;
  updated: number;
  /** Records not applied because they were stale (each also listed in errors with code STALE). */
  skipped: number;
  errors: SyncErrorShape[];
  dryRun: boolean;
  /** Dry run only: what each record would do, at most MAX_DRY_RUN_RECORDS of them. */
  records: RecordReportShape[] | null;
  /** Dry run only: records left out of `records` because of the cap. */
  recordsOmitted: number | null;
};

export type AckResultShape = { success: boolean; acknowledged: number };

export type BatchAckResultShape = AckResultShape & { notFound: number[]; notListed: number[] };
