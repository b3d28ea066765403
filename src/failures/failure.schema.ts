import type { SyncFailure as SyncFailureRow } from '../generated/prisma/client';
import { allow, visibleTo } from '../graphql/access';
import { builder } from '../graphql/builder';
import { readerOf } from '../changes/reader.schema';
import { FailureEntityType, FailureSource } from './failure-enums';
import { pageArgs, pageOf } from '../changes/pages.schema';
import { FAILURE_STATUSES } from './failure.input';
import {
  ACK_ENTITY_TYPES,
  acknowledgeUpdate,
  getFailure,
  listFailures,
  openFailureCounts,
  reportFailure,
  resolveFailure,
  type OpenFailureCount,
} from './failure.service';

const FailureStatus = builder.enumType('FailureStatus', { values: FAILURE_STATUSES });
const AckEntityTypeEnum = builder.enumType('AckEntityType', { values: ACK_ENTITY_TYPES });

type ErrorDetailShape = { field: string; message: string };
const ErrorDetail = builder.objectRef<ErrorDetailShape>('ErrorDetail').implement({
  fields: (t) => ({ field: t.exposeString('field'), message: t.exposeString('message') }),
});
const ErrorDetailInput = builder.inputType('ErrorDetailInput', {
  fields: (t) => ({ field: t.string({ required: true }), message: t.string({ required: true }) }),
});

/** Lists leave raw_data out (it may be 1 MB); hasRawData says whether there is some. */
type FailureRow = Omit<SyncFailureRow, 'rawData'>;

const FailureRecord = builder.interfaceRef<FailureRow>('FailureRecord').implement({
  description: 'A sync failure (SPEC 2.8).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    entity_type: t.field({ type: FailureEntityType, resolve: (f) => f.entityType }),
    external_id: t.exposeString('externalId', { nullable: true }),
    middleware_id: t.exposeInt('middlewareId', { nullable: true }),
    source: t.field({ type: FailureSource, resolve: (f) => f.source }),
    error_message: t.exposeString('errorMessage'),
    error_details: t.field({ type: [ErrorDetail], resolve: (f) => f.errorDetails as ErrorDetailShape[] }),
    status: t.field({ type: FailureStatus, resolve: (f) => f.status }),
    hasRawData: t.exposeBoolean('hasRawData'),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the failure was reported.' }),
    resolvedAt: t.expose('resolvedAt', { type: 'DateTime', nullable: true }),
    resolvedBy: t.exposeString('resolvedBy', {
      ...visibleTo('admin'),
      nullable: true,
      description: 'The token (or account) that resolved it. Role admin only: null for the others.',
    }),
    resolutionNote: t.exposeString('resolutionNote', { nullable: true }),
  }),
});

const SyncFailure = builder.objectRef<FailureRow>('SyncFailure').implement({ interfaces: [FailureRecord] });

const SyncFailureDetail = builder.objectRef<SyncFailureRow>('SyncFailureDetail').implement({
  description: 'A sync failure with the raw data that failed.',
  interfaces: [FailureRecord],
  fields: (t) => ({
    raw_data: t.field({ type: 'JSONObject', nullable: true, resolve: (f) => f.rawData as Record<string, unknown> | null }),
  }),
});

const ReportFailureResult = builder.objectRef<{ id: number; status: 'open'; deliveries: number }>('ReportFailureResult').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    status: t.field({ type: FailureStatus, resolve: (r) => r.status }),
    deliveries: t.exposeInt('deliveries', { description: 'Webhook deliveries queued for the opposite system.' }),
  }),
});

const AckUpdateResult = builder
  .objectRef<{ success: boolean; acknowledged: number; resolvedFailures: number }>('AckUpdateResult')
  .implement({
    fields: (t) => ({
      success: t.exposeBoolean('success'),
      acknowledged: t.exposeInt('acknowledged'),
      resolvedFailures: t.exposeInt('resolvedFailures', { description: 'Open failures of this entity resolved by the acknowledgement.' }),
    }),
  });

const caller = (ctx: { auth: { name: string } | null }) => ctx.auth?.name ?? 'unknown';

const OpenFailureCountRef = builder.objectRef<OpenFailureCount>('OpenFailureCount').implement({
  description: 'Open failures of one entity type reported by one source.',
  fields: (t) => ({
    entity_type: t.expose('entity_type', { type: FailureEntityType }),
    source: t.expose('source', { type: FailureSource }),
    open: t.exposeInt('open'),
  }),
});

builder.queryFields((t) => ({
  openFailureCounts: t.field({
    ...allow('read'),
    type: [OpenFailureCountRef],
    description: 'Open failures per entity type and source, every combination listed (zeros included).',
    resolve: (_root, _args, ctx) => openFailureCounts(ctx.prisma),
  }),
  failures: t.field({
    ...allow('read'),
    type: pageOf('SyncFailurePage', SyncFailure),
    description: 'Reported failures, newest first, without raw_data.',
    args: {
      entity_type: t.arg({ type: FailureEntityType }),
      status: t.arg({ type: FailureStatus }),
      source: t.arg({ type: FailureSource }),
      since: t.arg({ type: 'DateTime', description: 'Only failures reported after this time.' }),
      ...pageArgs,
    },
    resolve: (_root, args, ctx) => listFailures(ctx.prisma, args, args),
  }),
  failure: t.field({
    ...allow('read'),
    type: SyncFailureDetail,
    description: 'One failure in full, raw_data included; NOT_FOUND for an unknown id.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => getFailure(ctx.prisma, args.id),
  }),
}));

builder.mutationFields((t) => ({
  reportFailure: t.field({
    ...allow('report'),
    type: ReportFailureResult,
    description:
      'Reports a sync failure (open) and queues a signed sync_failure webhook to every active configuration of the entity type in the opposite direction.',
    args: {
      entity_type: t.arg({ type: FailureEntityType, required: true }),
      // Optional: erp and webshop tokens report as themselves; integration and admin must say (reporterSource).
      source: t.arg({ type: FailureSource }),
      error_message: t.arg.string({ required: true }),
      external_id: t.arg.string(),
      middleware_id: t.arg.int(),
      error_details: t.arg({ type: [ErrorDetailInput] }),
      raw_data: t.arg({ type: 'JSONObject', description: 'The payload that failed, up to 1 MB.' }),
    },
    resolve: (_root, args, ctx) => reportFailure(ctx, ctx.events, args, ctx.idempotencyRef, ctx.auth?.role),
  }),
  resolveFailure: t.field({
    ...allow('report'),
    type: SyncFailure,
    description: 'Resolves a failure by hand; resolving twice is harmless (the first resolution stands).',
    args: { id: t.arg.int({ required: true }), note: t.arg.string() },
    resolve: (_root, args, ctx) => resolveFailure(ctx.prisma, args.id, caller(ctx), args.note),
  }),
  acknowledgeUpdate: t.field({
    ...allow('consume'),
    type: AckUpdateResult,
    description:
      'Acknowledges a change record like the DELETE routes and, in the same transaction, resolves every open failure of that entity (same entity type and middleware_id, or same external_id).',
    args: {
      entityType: t.arg({ type: AckEntityTypeEnum, required: true }),
      id: t.arg.int({ required: true }),
      revision: t.arg.int({ description: 'The revision processed; without it, the revision last listed to this client.' }),
      note: t.arg.string(),
    },
    resolve: (_root, args, ctx) =>
      acknowledgeUpdate(ctx.prisma, args.entityType, args, { reader: readerOf(ctx), name: caller(ctx) }, args.note),
  }),
}));
