import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { pageArgs, pageOf } from '../changes/pages.schema';
import { PENDING_ENTITY_TYPES, pendingRecords, type PendingRecordShape } from '../changes/pending-records';
import { channelOfCaller } from './channel.service';

const PendingRecord = builder.objectRef<PendingRecordShape>('PendingRecord').implement({
  description: 'A record with changes not acknowledged yet, as a dashboard shows it (any entity type, one shape).',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Middleware record id.' }),
    revision: t.exposeInt('revision', { description: 'The revision pending.' }),
    entityType: t.exposeString('entityType'),
    key: t.exposeString('key', {
      description: 'The external id; "supplier/product" for a stock entry, "pricelist/product" for a price item.',
    }),
    historyExternalId: t.exposeString('historyExternalId', {
      nullable: true,
      description:
        'What history(entityType, externalId) takes for this record (a price item: its product); null for stock entries, which keep none.',
    }),
    isNew: t.exposeBoolean('isNew', { description: 'Never acknowledged yet.' }),
    changedFields: t.exposeStringList('changedFields', { description: 'Fields changed since the last acknowledgement.' }),
    previous: t.field({
      type: 'JSONObject',
      nullable: true,
      description: 'Each changed field as of the last acknowledgement, as the change list shows it; null for a new record.',
      resolve: (r) => r.previous,
    }),
    current: t.field({ type: 'JSONObject', description: 'Each changed field as it is now.', resolve: (r) => r.current }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Time of the last change: its age is now minus this.' }),
  }),
});

builder.queryField('pendingRecords', (t) =>
  t.field({
    ...allow('read'),
    type: pageOf('PendingRecordPage', PendingRecord),
    description:
      `The pending records of one entity type (${PENDING_ENTITY_TYPES.join(', ')}), oldest change first. ` +
      'A dashboard read: it marks nothing as listed, for any role, so no acknowledgement by id ever covers what it showed. ' +
      'Pending on channel `channel` (default: default); a token bound to a channel reads its own only (ADR 0045).',
    args: { entityType: t.arg.string({ required: true }), channel: t.arg.string(), ...pageArgs },
    resolve: async (_root, args, ctx) => {
      const channelId = await channelOfCaller(ctx.prisma, ctx.auth?.channelId ?? null, args.channel ?? null);
      return pendingRecords(ctx, args.entityType, args, channelId);
    },
  }),
);
