import { filter, pipe } from 'graphql-yoga';
import { builder } from '../graphql/builder';
import { FailureEntityType, FailureSource } from './failure-enums';
import type { SyncFailureEvent } from './failure.input';

const EventErrorDetail = builder.objectRef<{ field: string; message: string }>('SyncFailureEventDetail').implement({
  fields: (t) => ({ field: t.exposeString('field'), message: t.exposeString('message') }),
});

/** The sync_failure event: the webhook payload of SPEC 6.2 field for field, plus the failure's id. */
const SyncFailureEventType = builder.objectRef<SyncFailureEvent>('SyncFailureEvent').implement({
  fields: (t) => ({
    event: t.exposeString('event'),
    failure_id: t.exposeInt('failure_id', { description: 'The stored failure, for failure(id) and resolveFailure (not part of the webhook payload).' }),
    entity_type: t.exposeString('entity_type'),
    external_id: t.exposeString('external_id', { nullable: true }),
    source: t.exposeString('source'),
    error_message: t.exposeString('error_message'),
    error_details: t.field({ type: [EventErrorDetail], resolve: (e) => e.error_details }),
    failed_at: t.exposeString('failed_at', { description: 'ISO 8601 timestamp.' }),
  }),
});

builder.subscriptionType({});

builder.subscriptionField('syncFailure', (t) =>
  t.field({
    type: SyncFailureEventType,
    description:
      'Every reported failure as it is stored (optionally of one entity type or source), over SSE (Accept: text/event-stream) or graphql-ws at /graphql. ' +
      'With REDIS_URL, failures reported to any replica reach subscribers on every replica. ' +
      'The stream ends when its token or session is revoked or signed out: SSE with a last result carrying an UNAUTHENTICATED error, graphql-ws with close code 4403.',
    args: {
      entityType: t.arg({ type: FailureEntityType }),
      source: t.arg({ type: FailureSource }),
    },
    subscribe: (_root, args, ctx) =>
      pipe(
        ctx.events.pubsub.subscribe('syncFailure'),
        filter((e: SyncFailureEvent) => (!args.entityType || e.entity_type === args.entityType) && (!args.source || e.source === args.source)),
      ),
    resolve: (event) => event,
  }),
);
