import type { AckResultShape, BatchAckResultShape, PageMetaShape, SyncErrorShape, SyncResultShape } from '../changes/results';
import { builder } from './builder';

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
  description: 'One rejected record of an inbound batch; the other records of the batch are stored.',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Position of the record in the request.' }),
    external_id: t.exposeString('external_id', { nullable: true }),
    field: t.exposeString('field'),
    message: t.exposeString('message'),
  }),
});

export const SyncResult = builder.objectRef<SyncResultShape>('SyncResult').implement({
  description:
    'Outcome of an inbound batch. success is true when every record was accepted; processed counts accepted records, of which created were new and updated changed (an identical re-sync is neither).',
  fields: (t) => ({
    success: t.exposeBoolean('success'),
    processed: t.exposeInt('processed'),
    created: t.exposeInt('created'),
    updated: t.exposeInt('updated'),
    errors: t.expose('errors', { type: [SyncError] }),
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
  description: 'Number of records with pending (unacknowledged) changes, per entity.',
  fields: () => ({}),
});

builder.queryField('pendingChanges', (t) => t.field({ type: PendingChanges, resolve: () => ({}) }));
