import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE } from '../queue/change-batches';
import {
  CHANNEL_STARTS,
  channelLag,
  createChannel,
  deleteChannel,
  listChannels,
  setChannelPush,
  stopChannelPush,
  type ChannelLag,
  type ChannelPush,
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

const ChannelPushType = builder.objectRef<ChannelPush>('ChannelPush').implement({
  description:
    'Where a channel pushes its change records (change webhooks, ADR 0047): batches of one entity type, signed as failure deliveries are, ' +
    'each acknowledged by the endpoint’s 2xx. Pause and resume, health, rotation and the attempt log are those of webhook configuration webhookId.',
  fields: (t) => ({
    url: t.exposeString('url'),
    batchSize: t.exposeInt('batchSize', { description: 'Change records per delivery.' }),
    webhookId: t.exposeInt('webhookId', { description: 'Its webhook configuration (kind changes).' }),
    active: t.exposeBoolean('active', { description: 'false: paused (its configuration disabled); nothing is sent, nothing is lost.' }),
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
    push: t.field({
      type: ChannelPushType,
      nullable: true,
      description: 'Where it pushes its change records; null: its tokens poll (push and poll are exclusive).',
      resolve: (c) => c.push,
    }),
    newSecret: t.string({
      nullable: true,
      description: 'The push endpoint’s whsec_ secret, only in the answer that created it: store it now.',
      resolve: (c) => c.newSecret ?? null,
    }),
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
      pushUrl: t.arg.string({ description: 'Push its change records to this URL (change webhooks) instead of being polled.' }),
      batchSize: t.arg.int({
        description: `With pushUrl: change records per delivery, 1–${MAX_BATCH_SIZE} (default ${DEFAULT_BATCH_SIZE}).`,
      }),
    },
    resolve: async (_root, args, ctx) => {
      const created = await createChannel(ctx.prisma, args.name, args.from ?? 'now');
      if (args.pushUrl == null) return created;
      return setChannelPush(ctx.prisma, ctx.secrets, args.name, { url: args.pushUrl, batchSize: args.batchSize ?? undefined });
    },
  }),
  setChannelPush: t.field({
    ...allow('admin'),
    type: Channel,
    description:
      'Admin only. The channel (default included) pushes its change records to url from now on: batches of one entity type, batchSize records each, ' +
      'signed with the Standard Webhooks headers and X-Webhook-Signature; a 2xx acknowledges exactly the revisions sent; anything else retries on the ' +
      'delivery schedule with the same webhook-id; one batch at a time, so a later revision of a record never overtakes an earlier one. ' +
      'Its tokens may not poll it meanwhile (409). The first call answers the secret once in newSecret; later calls change url or batchSize only.',
    args: {
      name: t.arg.string({ required: true }),
      url: t.arg.string({ required: true }),
      batchSize: t.arg.int({ description: `1–${MAX_BATCH_SIZE} (default ${DEFAULT_BATCH_SIZE}).` }),
    },
    resolve: (_root, args, ctx) =>
      setChannelPush(ctx.prisma, ctx.secrets, args.name, { url: args.url, batchSize: args.batchSize ?? undefined }),
  }),
  stopChannelPush: t.field({
    ...allow('admin'),
    type: Channel,
    description:
      'Admin only. The channel stops pushing; its tokens poll it again. A batch not delivered yet stays pending, nothing is lost.',
    args: { name: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => stopChannelPush(ctx.prisma, args.name),
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
