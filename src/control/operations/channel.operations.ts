import { z } from 'zod';
import {
  CHANNEL_STARTS,
  channelLag,
  channelName,
  createChannel,
  deleteChannel,
  listChannels,
  setChannelPush,
  stopChannelPush,
} from '../../channels/channel.service';
import { asJson, defineOperation } from '../operation';

const pushTarget = { pushUrl: z.string().optional(), batchSize: z.coerce.number().int().optional() };

export const createChannelOperation = defineOperation({
  name: 'channel.create',
  args: z.object({ name: channelName, from: z.enum(CHANNEL_STARTS).default('now'), ...pushTarget }),
  run: async ({ db, secrets }, { name, from, pushUrl, batchSize }) => {
    const created = await createChannel(db.prisma, name, from);
    return asJson(pushUrl === undefined ? created : await setChannelPush(db.prisma, await secrets(), name, { url: pushUrl, batchSize }));
  },
});

export const pushChannelOperation = defineOperation({
  name: 'channel.push',
  args: z.object({ name: z.string().min(1, 'a channel name'), url: z.string().min(1, 'a URL'), batchSize: pushTarget.batchSize }),
  run: async ({ db, secrets }, { name, url, batchSize }) =>
    asJson(await setChannelPush(db.prisma, await secrets(), name, { url, batchSize })),
});

export const pollChannelOperation = defineOperation({
  name: 'channel.poll',
  args: z.object({ name: z.string().min(1, 'a channel name') }),
  run: async ({ db }, { name }) => asJson(await stopChannelPush(db.prisma, name)),
});

export const listChannelsOperation = defineOperation({
  name: 'channel.list',
  args: z.object({}),
  run: async ({ db }) => {
    const channels = await listChannels(db.prisma);
    const withLag = await Promise.all(
      channels.map(async (c) => ({
        ...c,
        lag: await channelLag(db.prisma, c.id),
      })),
    );
    return asJson(withLag);
  },
});

export const deleteChannelOperation = defineOperation({
  name: 'channel.delete',
  args: z.object({ name: z.string().min(1, 'a channel name') }),
  run: async ({ db, announceRevocation }, { name }) => {
    const channel = asJson(await deleteChannel(db.prisma, name));
    return { channel, warning: channel.tokens.length > 0 ? await announceRevocation() : undefined };
  },
});
