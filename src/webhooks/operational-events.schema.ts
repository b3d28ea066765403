import { filter, pipe } from 'graphql-yoga';
import { AppError } from '../errors/app-error';
import { isLiveEventsGap, type LiveEventsGap } from '../events/hub';
import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { OPERATIONAL_EVENT_NAMES, type OperationalEvent } from '../events/live-events';

const OperationalEventName = builder.enumType('OperationalEventName', {
  // GraphQL enum values cannot contain dots: webhook_disabled stands for webhook.disabled.
  values: Object.fromEntries(OPERATIONAL_EVENT_NAMES.map((name) => [name.replace('.', '_'), { value: name, description: name }])) as Record<
    string,
    { value: OperationalEvent['event']; description: string }
  >,
});

const OperationalEventType = builder.objectRef<OperationalEvent>('OperationalEvent').implement({
  description:
    'webhook.disabled: the worker disabled a configuration that failed WEBHOOK_DISABLE_AFTER_HOURS without a success (webhookId, url, failingSince, consecutiveFailedItems). ' +
    'delivery.failed: a delivery was abandoned, no more retries (itemId, failureId, attempts, error, statusCode). ' +
    'delivery.recovered: a delivery succeeded after failed attempts (itemId, failureId, attempts).',
  fields: (t) => ({
    event: t.field({ type: OperationalEventName, resolve: (e) => e.event }),
    name: t.string({
      description: 'The event name as written in the docs: webhook.disabled, delivery.failed, delivery.recovered.',
      resolve: (e) => e.event,
    }),
    at: t.exposeString('at', { description: 'ISO 8601: when the result was recorded (the worker disabled the configuration).' }),
    webhookId: t.exposeInt('webhookId', { nullable: true, description: 'The configuration; null when it was removed.' }),
    url: t.exposeString('url', { nullable: true }),
    itemId: t.exposeInt('itemId', { nullable: true, description: 'The outbound queue item (delivery events).' }),
    failureId: t.exposeInt('failureId', { nullable: true, description: 'The sync failure the delivery notifies of.' }),
    attempts: t.exposeInt('attempts', { nullable: true, description: 'Attempts made in the delivery schedule.' }),
    error: t.exposeString('error', { nullable: true, description: 'As lastError: HTTP <status>, timeout, connection refused…' }),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    failingSince: t.exposeString('failingSince', {
      nullable: true,
      description: 'webhook.disabled: the first failed attempt after the last success.',
    }),
    consecutiveFailedItems: t.exposeInt('consecutiveFailedItems', { nullable: true }),
  }),
});

builder.subscriptionField('operationalEvents', (t) =>
  t.field({
    ...allow('admin'),
    type: OperationalEventType,
    description:
      'Admin only. Webhook configurations disabled by the worker, deliveries abandoned and deliveries recovered, as they happen, over SSE or graphql-ws at /graphql ' +
      '(optionally only the given events). With REDIS_URL, events of every replica reach every replica. At most once, like syncFailure: after a Redis outage ' +
      'a payload with `data: null` and a SERVICE_UNAVAILABLE error whose `extensions.gap` holds `{from, until}` says events may be missing (see webhookConfigs and the queue).',
    args: { events: t.arg({ type: [OperationalEventName] }) },
    subscribe: (_root, args, ctx) => {
      const wanted = args.events?.length ? new Set<string>(args.events) : undefined;
      return pipe(
        ctx.events.pubsub.subscribe('operationalEvents'),
        filter((e: OperationalEvent | LiveEventsGap) => isLiveEventsGap(e) || !wanted || wanted.has(e.event)),
      );
    },
    resolve: (event: OperationalEvent | LiveEventsGap) => {
      if (!isLiveEventsGap(event)) return event;
      const error = new AppError(
        'SERVICE_UNAVAILABLE',
        `Operational events may have been missed between ${event.from} and ${event.until} (Redis was unreachable); check webhookConfigs and the failed queue items`,
      );
      Object.assign(error.extensions, { gap: { from: event.from, until: event.until } });
      throw error;
    },
  }),
);
