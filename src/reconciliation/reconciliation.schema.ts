import { requireAdmin } from '../auth/roles';
import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import type { EntitySummary, ReconcileResult } from './reconciliation.service';
import { MAX_RECONCILE_ITEMS, reconcile, reconciliationSummary } from './reconciliation.service';
import { DIGESTED_TYPES, ENTITY_TYPES } from './entity-types';
import { MAX_RESYNC_IDS, resync } from './resync.service';
import { channelOfCaller } from '../channels/channel.service';

const ResyncResult = builder.objectRef<{ resynced: number }>('ResyncResult').implement({
  fields: (t) => ({
    resynced: t.exposeInt('resynced', { description: 'Records marked pending again (with dry_run: that would be).' }),
  }),
});

builder.mutationField('resync', (t) =>
  t.field({
    ...allow('admin'),
    type: ResyncResult,
    description:
      'Admin only. Marks every matching record pending again with all its fields in changedFields (isNew unchanged), one statement per entity type; ' +
      'its revision moves on, so an acknowledgement follows the usual revision rules. Filters combine (AND): external_ids (for stock and price_item: ' +
      `product external ids; at most ${MAX_RESYNC_IDS.toLocaleString('en')}), since/until (inclusive, on updatedAt), partner_type (partner only), direction (sale_order only). ` +
      "Without filters every record of the type. dry_run=true counts without changing anything (the console's preview). " +
      'channel (default: default) names whose feed replays: no other channel sees the replay (ADR 0045).',
    args: {
      channel: t.arg.string({ description: 'The channel to replay to; default: default.' }),
      entity_type: t.arg.string({ required: true, description: ENTITY_TYPES.join(', ') }),
      external_ids: t.arg.stringList(),
      since: t.arg({ type: 'DateTime' }),
      until: t.arg({ type: 'DateTime' }),
      partner_type: t.arg.string({ description: 'B, C, D or O' }),
      direction: t.arg.string({ description: 'inbound or outbound' }),
      dry_run: t.arg.boolean({ description: 'true: count the matching records, change nothing.' }),
    },
    resolve: (_root, args, ctx) => {
      return resync(ctx, args, args.dry_run === true);
    },
  }),
);

const EntityReconciliation = builder.objectRef<EntitySummary>('EntityReconciliation').implement({
  description: 'The state of one entity type of the change feed.',
  fields: (t) => ({
    entityType: t.exposeString('entityType'),
    records: t.exposeInt('records'),
    pending: t.exposeInt('pending', { description: 'Records with changes not acknowledged yet on the channel read.' }),
    neverAcknowledged: t.exposeInt('neverAcknowledged', {
      description: 'Records the channel read never acknowledged (on a channel other than default: none, or reset to 0 by a resync).',
    }),
    oldestPendingAt: t.expose('oldestPendingAt', {
      type: 'DateTime',
      nullable: true,
      description: 'updatedAt of the oldest record pending on the channel read.',
    }),
    oldestPendingAgeSeconds: t.exposeInt('oldestPendingAgeSeconds', { nullable: true }),
    lastPushAt: t.expose('lastPushAt', { type: 'DateTime', nullable: true, description: 'Time of the last accepted change.' }),
    lastAcknowledgedAt: t.expose('lastAcknowledgedAt', {
      type: 'DateTime',
      nullable: true,
      description: "Time of channel default's last acknowledgement; always null on another channel, whose acknowledgements keep no time.",
    }),
  }),
});

const ReconciliationSummary = builder.objectRef<{ entities: EntitySummary[] }>('ReconciliationSummary').implement({
  fields: (t) => ({ entities: t.expose('entities', { type: [EntityReconciliation] }) }),
});

builder.queryField('reconciliation', (t) =>
  t.field({
    ...allow('feed'),
    type: ReconciliationSummary,
    description:
      `Per entity type (${ENTITY_TYPES.join(', ')}): records, pending, never acknowledged, oldest pending change, last push, last acknowledgement, ` +
      'on channel `channel` (default: default); a token bound to a channel reads its own only (ADR 0045).',
    args: {
      channel: t.arg.string({ description: 'The channel read (default: default); a token bound to a channel may name only its own.' }),
    },
    resolve: async (_root, args, ctx) =>
      reconciliationSummary(ctx.prisma, new Date(), await channelOfCaller(ctx.prisma, ctx.auth?.channelId ?? null, args.channel ?? null)),
  }),
);

const ReconcileItemInput = builder.inputType('ReconcileItemInput', {
  description: 'One record as the webshop holds it: its external id and the digest of the data it last acknowledged.',
  fields: (t) => ({
    external_id: t.string({ required: true }),
    digest: t.string({ required: true, description: 'SHA-256 (64 hex digits) of the RFC 8785 canonical JSON of data.' }),
    field_digests: t.field({
      // JSON rather than JSONObject: the service names the item when it is not an object.
      type: 'JSON',
      description: "Optional {field: SHA-256 of the canonical JSON of that field's value}: mismatched then names the fields that differ.",
    }),
  }),
});

const Mismatch = builder.objectRef<ReconcileResult['mismatched'][number]>('ReconcileMismatch').implement({
  fields: (t) => ({
    external_id: t.exposeString('external_id'),
    fields: t.exposeStringList('fields', { nullable: true, description: 'Fields that differ, when the item sent field_digests.' }),
  }),
});

const ReconcileResultType = builder.objectRef<ReconcileResult>('ReconcileResult').implement({
  fields: (t) => ({
    compared: t.exposeInt('compared', { description: 'Records whose digest was compared.' }),
    missing: t.exposeStringList('missing', {
      description: `Acknowledged records in the range of this call the webshop did not send (at most ${MAX_RECONCILE_ITEMS.toLocaleString('en')}).`,
    }),
    extra: t.exposeStringList('extra', { description: 'Sent external ids the middleware does not know.' }),
    mismatched: t.expose('mismatched', { type: [Mismatch], description: 'Records whose data differs from what the webshop holds.' }),
    pending: t.exposeStringList('pending', { description: 'Sent records with changes still to be delivered: not compared.' }),
    resynced: t.exposeInt('resynced', { nullable: true, description: 'With resync: missing and mismatched records marked pending again.' }),
  }),
});

builder.mutationField('reconcile', (t) =>
  t.field({
    ...allow('consume'),
    type: ReconcileResultType,
    description:
      `Compares the webshop's records of one entity type (${DIGESTED_TYPES.join(', ')}) with the middleware's, by digest of data. ` +
      `Up to ${MAX_RECONCILE_ITEMS.toLocaleString('en')} items per call; after/to/to_end (byte order) bound where missing records are looked for.`,
    args: {
      entityType: t.arg.string({ required: true }),
      items: t.arg({ type: [ReconcileItemInput], required: true }),
      after: t.arg.string({
        description: 'Look for missing records after this external_id (exclusive); default from the lowest sent (inclusive).',
      }),
      to: t.arg.string({ description: 'Look for missing records up to this external_id (inclusive); default the highest sent.' }),
      to_end: t.arg.boolean({ description: 'true: look for missing records up to the last external_id (instead of to).' }),
      resync: t.arg.boolean({
        description:
          'true (admin only, as the resync mutation): mark the missing and mismatched records pending again (resynced counts them).',
      }),
      channel: t.arg.string({
        description: 'The channel whose acknowledgements are compared (default: default); a token bound to a channel compares its own.',
      }),
    },
    resolve: async (_root, args, ctx) => {
      // The same effect as the resync mutation, so the same role: comparing stays open to the webshop's token.
      if (args.resync === true) requireAdmin(ctx, 'reconcile with resync: true');
      const channelId = await channelOfCaller(ctx.prisma, ctx.auth?.channelId ?? null, args.channel ?? null);
      return reconcile(ctx, args.entityType, args, channelId);
    },
  }),
);
