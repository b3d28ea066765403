import { allow, visibleTo } from '../graphql/access';
import { builder } from '../graphql/builder';
import { pageArgs, pageOf } from '../changes/pages.schema';
import { ATTEMPT_OUTCOMES, type AttemptLogOutcome } from '../deliveries/attempt-log';
import { MAX_STATS_MINUTES, webhookDeliveryStats, type WebhookDeliveryStatsShape } from './delivery-stats';
import {
  deliveriesPerMinute,
  getQueueItem,
  listQueueItems,
  MAX_LISTED_ATTEMPTS,
  MAX_RATE_MINUTES,
  queueStats,
  QUEUE_STATUSES,
  RECOVERABLE_STATUSES,
  recoverQueueItems,
  retryFailedItems,
  retryQueueItem,
  type DeliveryMinute,
  type QueueStatus,
} from './queue.service';

const QueueStatusEnum = builder.enumType('QueueStatus', { values: QUEUE_STATUSES });
const RecoverableStatusEnum = builder.enumType('RecoverableQueueStatus', {
  description: 'Items a recover puts back: failed only for now (the default).',
  values: RECOVERABLE_STATUSES,
});
const AttemptOutcomeEnum = builder.enumType('DeliveryAttemptOutcome', {
  description:
    'success (2xx), http_error (any other status but 410), timeout, network_error (refused, reset, unknown host, TLS…), ' +
    'blocked (the SSRF guard refused the address: nothing was sent), gone (410 Gone, or the configuration was removed or disabled).',
  values: ATTEMPT_OUTCOMES,
});

export const DeliveryAttempt = builder.prismaObject('DeliveryAttempt', {
  description: 'One attempt to deliver a queue item.',
  fields: (t) => ({
    attempt: t.exposeInt('attempt', {
      description: 'The attempt number in the schedule it belonged to (a retry starts a new schedule at 1).',
    }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    durationMs: t.exposeInt('durationMs', { description: 'From sending the request to the end of the response excerpt.' }),
    outcome: t.field({ type: AttemptOutcomeEnum, resolve: (a) => a.outcome as AttemptLogOutcome }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: 'The HTTP status; null when no response came.' }),
    error: t.exposeString('error', {
      nullable: true,
      description: 'What went wrong: "HTTP 500", "timeout", "connection refused", "blocked: <reason>"…; null on success.',
    }),
    responseBody: t.exposeString('responseBody', {
      ...visibleTo('deliver'),
      nullable: true,
      description:
        'The first 4 KB of the response body (UTF-8, invalid bytes replaced, NUL removed); null when no response came. ' +
        'Roles integration and admin only: null for the others.',
    }),
    retryAfter: t.exposeString('retryAfter', { nullable: true, description: 'The Retry-After header of the response, as sent.' }),
  }),
});

export const OutboundQueueItem = builder.prismaObject('OutboundQueueItem', {
  description: 'One delivery of one event to one webhook configuration.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    status: t.field({ type: QueueStatusEnum, resolve: (i) => i.status }),
    attempts: t.exposeInt('attempts', { description: 'Attempts in the current schedule (a retry starts a new one).' }),
    maxAttempts: t.exposeInt('maxAttempts'),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime' }),
    lastError: t.exposeString('lastError', { nullable: true }),
    lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    webhookConfigId: t.exposeInt('webhookConfigId', { nullable: true, description: 'The target configuration (null once removed).' }),
    failureId: t.exposeInt('failureId', { nullable: true }),
    event: t.exposeString('event'),
    messageId: t.exposeString('messageId', { description: 'The webhook-id header, the same on every attempt.' }),
    payload: t.field({ type: 'JSONObject', resolve: (i) => i.payload as Record<string, unknown> }),
    attemptLog: t.relation('attemptLog', {
      description: `Every attempt to deliver this item, newest first (at most ${MAX_LISTED_ATTEMPTS}), across retries. Completed items and their attempts are pruned after RETENTION_COMPLETED_DAYS.`,
      query: { orderBy: { id: 'desc' }, take: MAX_LISTED_ATTEMPTS },
    }),
  }),
});

const QueueStats = builder.objectRef<Record<QueueStatus | 'retrying', number>>('QueueStats').implement({
  description: 'Number of queue items per status.',
  fields: (t) => ({
    pending: t.exposeInt('pending'),
    processing: t.exposeInt('processing'),
    completed: t.exposeInt('completed'),
    failed: t.exposeInt('failed'),
    retrying: t.exposeInt('retrying', {
      description: 'Of the pending items, those whose last attempt failed (retried on the schedule, for up to 24 hours).',
    }),
  }),
});

const WebhookDeliveryStats = builder.objectRef<WebhookDeliveryStatsShape>('WebhookDeliveryStats').implement({
  description: "One configuration's delivery attempts over a window.",
  fields: (t) => ({
    webhookId: t.exposeInt('webhookId'),
    attempts: t.exposeInt('attempts'),
    succeeded: t.exposeInt('succeeded', { description: 'Attempts answered 2xx.' }),
    successRate: t.exposeFloat('successRate', { nullable: true, description: 'succeeded / attempts, 0 to 1; null without attempts.' }),
    avgDurationMs: t.exposeInt('avgDurationMs', {
      nullable: true,
      description: 'Mean duration of the attempts that sent a request (not those blocked by the SSRF guard); null without any.',
    }),
    p95DurationMs: t.exposeInt('p95DurationMs', { nullable: true, description: 'Their 95th percentile; null without any.' }),
  }),
});

const DeliveryMinuteRef = builder.objectRef<DeliveryMinute>('DeliveryMinute').implement({
  description: 'Deliveries that finished within one minute.',
  fields: (t) => ({
    minute: t.expose('minute', { type: 'DateTime', description: 'Start of the minute.' }),
    delivered: t.exposeInt('delivered', { description: 'Items delivered (2xx) in this minute.' }),
    failed: t.exposeInt('failed', { description: 'Items that used up their attempts in this minute.' }),
    failedAttempts: t.exposeInt('failedAttempts', {
      description: 'Attempts that failed in this minute, whether their item is retried or abandoned.',
    }),
  }),
});

const RecoverResult = builder.objectRef<{ recovered: number }>('RecoverQueueItemsResult').implement({
  fields: (t) => ({ recovered: t.exposeInt('recovered', { description: 'Items given a fresh schedule.' }) }),
});

const RetryFailedResult = builder.objectRef<{ retried: number }>('RetryFailedResult').implement({
  fields: (t) => ({ retried: t.exposeInt('retried') }),
});

builder.queryFields((t) => ({
  outboundQueueStats: t.field({
    ...allow('monitor'),
    type: QueueStats,
    resolve: (_root, _args, ctx) => queueStats(ctx.prisma),
  }),
  deliveriesPerMinute: t.field({
    ...allow('monitor'),
    type: [DeliveryMinuteRef],
    description: `Deliveries finished per minute over the last \`minutes\` minutes (default 15, at most ${MAX_RATE_MINUTES}), oldest first, the current minute last.`,
    args: { minutes: t.arg.int({ defaultValue: 15 }) },
    resolve: (_root, args, ctx) => deliveriesPerMinute(ctx.prisma, args.minutes ?? 15),
  }),
  webhookDeliveryStats: t.field({
    ...allow('monitor'),
    type: [WebhookDeliveryStats],
    description: `Per webhook configuration, its delivery attempts over the last \`minutes\` (default 60, at most ${MAX_STATS_MINUTES}): count, success rate and duration.`,
    args: { minutes: t.arg.int({ defaultValue: 60 }) },
    resolve: (_root, args, ctx) => webhookDeliveryStats(ctx.prisma, args.minutes ?? 60),
  }),
  outboundQueueItem: t.field({
    ...allow('monitor'),
    type: OutboundQueueItem,
    description: 'One queue item with its payload and its attempt log; NOT_FOUND for an unknown id.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => getQueueItem(ctx.prisma, args.id),
  }),
  outboundQueue: t.field({
    ...allow('monitor'),
    type: pageOf('OutboundQueuePage', OutboundQueueItem),
    description:
      'Queue items, newest first; optionally only those of one status, the deliveries of one failure (failureId), ' +
      'the delivery of one webhook-id (messageId), or the pending items whose last attempt failed (retrying).',
    args: {
      status: t.arg({ type: QueueStatusEnum }),
      failureId: t.arg.int({ description: 'Only the deliveries queued for this sync failure.' }),
      messageId: t.arg.string({ description: 'Only the delivery with this webhook-id header (msg_…), as a receiver logged it.' }),
      retrying: t.arg.boolean({ description: 'true: only pending items whose last attempt failed.' }),
      ...pageArgs,
    },
    resolve: (_root, args, ctx) => listQueueItems(ctx.prisma, args, args),
  }),
}));

builder.mutationFields((t) => ({
  retryQueueItem: t.field({
    ...allow('deliver'),
    type: OutboundQueueItem,
    description:
      'Puts a failed item (retry) or a completed one (resend) back to pending, due now, with a fresh schedule and the same webhook-id. CONFLICT when it is pending or processing.',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const item = await retryQueueItem(ctx.prisma, args.id);
      ctx.events.signalQueueWork();
      return item;
    },
  }),
  recoverQueueItems: t.field({
    ...allow('deliver'),
    type: RecoverResult,
    description:
      'Gives every item of `status` (failed, the default) queued at or after `since` and before `until` (no upper bound when omitted) a fresh schedule, due now, with the same webhook-id. ' +
      'VALIDATION_FAILED naming since when since is after until.',
    args: {
      since: t.arg({ type: 'DateTime', required: true, description: 'Items queued at or after this time.' }),
      until: t.arg({ type: 'DateTime', description: 'Items queued before this time; no upper bound when omitted.' }),
      status: t.arg({ type: RecoverableStatusEnum }),
    },
    resolve: async (_root, args, ctx) => {
      const recovered = await recoverQueueItems(ctx.prisma, args);
      if (recovered > 0) ctx.events.signalQueueWork();
      return { recovered };
    },
  }),
  retryFailedQueueItems: t.field({
    ...allow('deliver'),
    type: RetryFailedResult,
    description: 'Retries every failed item whose attempts are below maxAttempts (every failed item when omitted).',
    args: { maxAttempts: t.arg.int() },
    resolve: async (_root, args, ctx) => {
      const retried = await retryFailedItems(ctx.prisma, args.maxAttempts);
      if (retried > 0) ctx.events.signalQueueWork();
      return { retried };
    },
  }),
}));
