import { z } from 'zod';
import { CHANNEL_STARTS, channelLag, channelName, createChannel, deleteChannel, listChannels } from '../../channels/channel.service';
import { asJson, defineOperation } from '../operation';

export const createChannelOperation = defineOperation({
  name: 'channel.create',
  args: z.object({ name: channelName, from: z.enum(CHANNEL_STARTS).default('now') }),
  run: async ({ db }, { name, from }) => asJson(await createChannel(db.prisma, name, from)),
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
