import type { AckResultShape, BatchAckResultShape, PageMetaShape, RecordReportShape, SyncErrorShape, SyncResultShape } from './results';
import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { ON_CALLERS_CHANNEL } from './ledger-view.schema';

/** Shared shapes of every change list and acknowledgement, reused by each domain. */

export const PageMeta = builder.objectRef<PageMetaShape>('PageMeta').implement({
  description: 'Pagination of a list: total matching records, the limit applied and the offset.',
  fields: (t) => ({
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit', { description: 'The limit applied (requests above the maximum are clamped).' }),
    offset: t.exposeInt('offset'),
  }),
});

export const SyncError = builder.objectRef<SyncErrorShape>('SyncError').implement({
  description:
    'One record of an inbound batch that was not applied; the other records of the batch are stored. ' +
    'code INVALID: rejected (field names the problem); STALE: its source_updated_at is older than the stored one, so it was skipped (the message names both times).',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Position of the record in the request.' }),
    external_id: t.exposeString('external_id', { nullable: true }),
    field: t.exposeString('field'),
    message: t.exposeString('message'),
    code: t.string({ description: 'INVALID or STALE.', resolve: (e) => e.code ?? 'INVALID' }),
  }),
});

export const RecordReport = builder.objectRef<RecordReportShape>('RecordReport').implement({
  description: 'What a dry run would do to one record of the push.',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Position of the record in the request.' }),
    external_id: t.exposeString('external_id', {
      nullable: true,
      description: 'The external id; for a stock entry "supplier_external_id/product_external_id".',
    }),
    action: t.exposeString('action', { description: 'created, updated, unchanged, skipped (STALE) or rejected (INVALID).' }),
    changedFields: t.exposeStringList('changedFields', { description: 'Fields the push would change.' }),
    previous: t.field({
      type: 'JSONObject',
      nullable: true,
      description: 'The stored value of each changed field before the push; null for a new or rejected record.',
      resolve: (r) => r.previous,
    }),
  }),
});

export const SyncResult = builder.objectRef<SyncResultShape>('SyncResult').implement({
  description:
    'Outcome of an inbound batch. success is true when every record was applied; processed counts valid records, of which created were new, ' +
    'updated changed (an identical re-sync is neither) and skipped were stale (older source_updated_at than stored, listed in errors with code STALE).',
  fields: (t) => ({
    success: t.exposeBoolean('success'),
    processed: t.exposeInt('processed'),
    created: t.exposeInt('created'),
    updated: t.exposeInt('updated'),
    skipped: t.exposeInt('skipped', { description: 'Records not applied because they were stale (ADR 0027).' }),
    errors: t.expose('errors', { type: [SyncError] }),
    dryRun: t.exposeBoolean('dryRun', { description: 'True when nothing was stored (dry_run=true).' }),
    records: t.expose('records', {
      type: [RecordReport],
      nullable: true,
      description: 'Dry run only: what each record would do, in request order, capped; null otherwise.',
    }),
    recordsOmitted: t.exposeInt('recordsOmitted', { nullable: true, description: 'Dry run only: records left out of records by the cap.' }),
  }),
});

export const AckResult = builder.objectRef<AckResultShape>('AckResult').implement({
  fields: (t) => ({
    success: t.exposeBoolean('success'),
    acknowledged: t.exposeInt('acknowledged'),
  }),
});

export const BatchAckResult = builder.objectRef<BatchAckResultShape>('BatchAckResult').implement({
  description:
    'acknowledged counts the records acknowledged (again, for a repeated acknowledgement); notFound lists the ids that match no record; ' +
    'notListed lists the ids given without a revision that were never listed to this client: nothing of them was acknowledged.',
  fields: (t) => ({
    success: t.exposeBoolean('success'),
    acknowledged: t.exposeInt('acknowledged'),
    notFound: t.exposeIntList('notFound'),
    notListed: t.exposeIntList('notListed'),
  }),
});

export const AckItemInput = builder.inputType('AckItemInput', {
  description: 'One record to acknowledge and the revision the client processed (from the change list).',
  fields: (t) => ({
    id: t.int({ required: true }),
    revision: t.int({ required: true, description: 'Covers this revision and nothing newer.' }),
  }),
});

/** Counts for dashboards; each tracked domain adds its own field (see products/product.schema.ts). */
export const PendingChanges = builder.objectRef<Record<string, never>>('PendingChanges').implement({
  description: `Number of records with pending (unacknowledged) changes, per entity. ${ON_CALLERS_CHANNEL}`,
  fields: () => ({}),
});

builder.queryField('pendingChanges', (t) => t.field({ ...allow('read'), type: PendingChanges, resolve: () => ({}) }));
