import { builder } from '../graphql/builder';
import { pageArgs, pageOf } from '../graphql/pages';
import {
  deliveriesPerMinute,
  listQueueItems,
  MAX_RATE_MINUTES,
  queueStats,
  QUEUE_STATUSES,
  retryFailedItems,
  retryQueueItem,
  type DeliveryMinute,
  type QueueStatus,
} from './queue.service';

const QueueStatusEnum = builder.enumType('QueueStatus', { values: QUEUE_STATUSES });

export const OutboundQueueItem = builder.prismaObject('OutboundQueueItem', {
  description: 'One delivery of one event to one webhook configuration.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    status: t.field({ type: QueueStatusEnum, resolve: (i) => i.status as QueueStatus }),
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
  }),
});

const QueueStats = builder.objectRef<Record<QueueStatus, number>>('QueueStats').implement({
  description: 'Number of queue items per status.',
  fields: (t) => ({
    pending: t.exposeInt('pending'),
    processing: t.exposeInt('processing'),
    completed: t.exposeInt('completed'),
    failed: t.exposeInt('failed'),
  }),
});

const DeliveryMinuteRef = builder.objectRef<DeliveryMinute>('DeliveryMinute').implement({
  description: 'Deliveries that finished within one minute.',
  fields: (t) => ({
    minute: t.expose('minute', { type: 'DateTime', description: 'Start of the minute.' }),
    delivered: t.exposeInt('delivered', { description: 'Items delivered (2xx) in this minute.' }),
    failed: t.exposeInt('failed', { description: 'Items that used up their attempts in this minute.' }),
  }),
});

const RetryFailedResult = builder.objectRef<{ retried: number }>('RetryFailedResult').implement({
  fields: (t) => ({ retried: t.exposeInt('retried') }),
});

builder.queryFields((t) => ({
  outboundQueueStats: t.field({
    type: QueueStats,
    resolve: (_root, _args, ctx) => queueStats(ctx.prisma),
  }),
  deliveriesPerMinute: t.field({
    type: [DeliveryMinuteRef],
    description: `Deliveries finished per minute over the last \`minutes\` minutes (default 15, at most ${MAX_RATE_MINUTES}), oldest first, the current minute last.`,
    args: { minutes: t.arg.int({ defaultValue: 15 }) },
    resolve: (_root, args, ctx) => deliveriesPerMinute(ctx.prisma, args.minutes ?? 15),
  }),
  outboundQueue: t.field({
    type: pageOf('OutboundQueuePage', OutboundQueueItem),
    description: 'Queue items, newest first.',
    args: { status: t.arg({ type: QueueStatusEnum }), ...pageArgs },
    resolve: (_root, args, ctx) => listQueueItems(ctx.prisma, args, args),
  }),
}));

builder.mutationFields((t) => ({
  retryQueueItem: t.field({
    type: OutboundQueueItem,
    description: 'Puts a failed item back to pending, due now, with a fresh schedule. CONFLICT when it is not failed.',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const item = await retryQueueItem(ctx.prisma, args.id);
      ctx.events.signalQueueWork();
      return item;
    },
  }),
  retryFailedQueueItems: t.field({
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
