import { filter, pipe } from 'graphql-yoga';
import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { AppError } from '../errors/app-error';
import { isLiveEventsGap, type LiveEventsGap } from '../events/hub';
import { FailureEntityType, FailureSource } from './failure-enums';
import type { SyncFailureEvent } from '../events/live-events';

const EventErrorDetail = builder.objectRef<{ field: string; message: string }>('SyncFailureEventDetail').implement({
  fields: (t) => ({ field: t.exposeString('field'), message: t.exposeString('message') }),
});

/** The sync_failure event: the webhook payload of SPEC 6.2 field for field, plus the failure's id. */
const SyncFailureEventType = builder.objectRef<SyncFailureEvent>('SyncFailureEvent').implement({
  fields: (t) => ({
    event: t.exposeString('event'),
    failure_id: t.exposeInt('failure_id', {
      description: 'The stored failure, for failure(id) and resolveFailure (not part of the webhook payload).',
    }),
    entity_type: t.exposeString('entity_type'),
    external_id: t.exposeString('external_id', { nullable: true }),
    source: t.exposeString('source'),
    error_message: t.exposeString('error_message'),
    error_details: t.field({ type: [EventErrorDetail], resolve: (e) => e.error_details }),
    failed_at: t.exposeString('failed_at', { description: 'ISO 8601 timestamp.' }),
  }),
});

builder.subscriptionField('syncFailure', (t) =>
  t.field({
    ...allow('read'),
    type: SyncFailureEventType,
    description:
      'Every reported failure as it is stored (optionally of one entity type or source), over SSE (Accept: text/event-stream) or graphql-ws at /graphql. ' +
      'With REDIS_URL, failures reported to any replica reach subscribers on every replica. Live events are at most once: ' +
      'while Redis is unreachable a replica delivers only its own failures, and when Redis is back each subscriber receives one ' +
      'payload with `data: null` and an error of code SERVICE_UNAVAILABLE whose `extensions.gap` holds `{from, until}`: ' +
      'failures reported in that interval may be missing from the stream, list them with `failures` and keep reading. ' +
      'The stream ends when its token or session is revoked or signed out: SSE with a last result carrying an UNAUTHENTICATED error, graphql-ws with close code 4403.',
    args: {
      entityType: t.arg({ type: FailureEntityType }),
      source: t.arg({ type: FailureSource }),
    },
    subscribe: (_root, args, ctx) =>
      pipe(
        ctx.events.pubsub.subscribe('syncFailure'),
        filter(
          (e: SyncFailureEvent | LiveEventsGap) =>
            isLiveEventsGap(e) || ((!args.entityType || e.entity_type === args.entityType) && (!args.source || e.source === args.source)),
        ),
      ),
    // A gap is an error payload in the stream (the stream goes on): re-fetch what changed since `from`.
    resolve: (event: SyncFailureEvent | LiveEventsGap) => {
      if (isLiveEventsGap(event)) throw liveEventsGapError(event);
      return event;
    },
  }),
);

function liveEventsGapError(gap: LiveEventsGap): AppError {
  const error = new AppError(
    'SERVICE_UNAVAILABLE',
    `Live events may have been missed between ${gap.from} and ${gap.until} (Redis was unreachable); list the failures reported since ${gap.from}`,
  );
  Object.assign(error.extensions, { gap: { from: gap.from, until: gap.until } });
  return error;
}
