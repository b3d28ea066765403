import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import {
  CHANNEL_STARTS,
  channelLag,
  createChannel,
  deleteChannel,
  listChannels,
  type ChannelLag,
  type ChannelSummary,
} from './channel.service';

const ChannelStart = builder.enumType('ChannelStart', {
  description:
    'How a channel starts: now (nothing pending; every later change) or all (every current record pending as new, a full initial sync).',
  values: CHANNEL_STARTS,
});

const ChannelLagType = builder.objectRef<ChannelLag>('ChannelLag').implement({
  description: 'What a channel has not acknowledged yet, per entity type.',
  fields: (t) => ({
    entityType: t.exposeString('entityType'),
    pending: t.exposeInt('pending', { description: 'Records with changes the channel has not acknowledged (exact).' }),
    oldestPendingAgeSeconds: t.exposeFloat('oldestPendingAgeSeconds', {
      nullable: true,
      description: 'Age of the oldest change pending for the channel; null when nothing is pending.',
    }),
  }),
});

const Channel = builder.objectRef<ChannelSummary>('Channel').implement({
  description:
    'A consumer of the change feed with its own pending state (ADR 0045): an acknowledgement on one channel never changes what is pending on another. ' +
    'Channel default always exists; webshop tokens are bound to one channel.',
  fields: (t) => ({
    name: t.exposeString('name'),
    startedFrom: t.field({ type: ChannelStart, nullable: true, description: 'Null for channel default.', resolve: (c) => c.startedFrom }),
    createdAt: t.expose('createdAt', { type: 'DateTime', nullable: true, description: 'Null for channel default.' }),
    tokens: t.exposeStringList('tokens', { description: 'Names of the tokens bound to it that are not revoked.' }),
    lag: t.field({
      type: [ChannelLagType],
      description: 'Pending records and the oldest pending change, per entity type.',
      resolve: (c, _args, ctx) => (c.deleted ? [] : channelLag(ctx.prisma, c.id)),
    }),
  }),
});

builder.queryField('channels', (t) =>
  t.field({
    ...allow('admin'),
    type: [Channel],
    description: 'Admin only. Every channel, default first, with its tokens and lag.',
    resolve: (_root, _args, ctx) => listChannels(ctx.prisma),
  }),
);

builder.mutationFields((t) => ({
  createChannel: t.field({
    ...allow('admin'),
    type: Channel,
    description:
      'Admin only. Creates a channel: from now (default), nothing is pending for it and it receives every later change; from all, every current record is pending for it as new. ' +
      'Pushes wait while it starts (every table’s change clock is held). Then bind a webshop token to it (createApiToken channel).',
    args: {
      name: t.arg.string({ required: true, description: 'Lower-case letters, digits, - and _; at most 63 characters.' }),
      from: t.arg({ type: ChannelStart }),
    },
    resolve: (_root, args, ctx) => createChannel(ctx.prisma, args.name, args.from ?? 'now'),
  }),
  deleteChannel: t.field({
    ...allow('admin'),
    type: Channel,
    description:
      'Admin only. Deletes a channel with its pending state, and revokes the tokens bound to it (their open subscriptions end). Channel default cannot be deleted (409).',
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const deleted = await deleteChannel(ctx.prisma, args.name);
      await ctx.credentialsRevoked();
      return deleted;
    },
  }),
}));
