import { Gauge, type Registry } from 'prom-client';
import type { PrismaClient } from '../generated/prisma/client';
import { channelLag, listChannels, type ChannelLag } from '../channels/channel.service';

/** One reading serves both gauges of a scrape. */
const READING_MS = 1_000;

/**
 * Per channel and entity type (issue 31): the pending count and the age of the oldest pending
 * change, the lag an operator alerts on (`sync_gateway_channel_oldest_pending_age_seconds > 3600`).
 * Channel default included; read from the database when scraped, so every replica tells the same.
 */
export function registerChannelGauges(registry: Registry, prisma: PrismaClient): void {
  let reading: { at: number; lags: Promise<Array<{ channel: string; lag: ChannelLag[] }>> } | undefined;
  const read = () => {
    if (!reading || Date.now() - reading.at > READING_MS) {
      const lags = listChannels(prisma).then((channels) =>
        Promise.all(channels.map(async (c) => ({ channel: c.name, lag: await channelLag(prisma, c.id) }))),
      );
      reading = { at: Date.now(), lags };
      lags.catch(() => (reading = undefined));
    }
    return reading.lags;
  };
  new Gauge({
    name: 'sync_gateway_channel_pending_changes',
    help: 'Records with changes a channel has not acknowledged, by channel and entity type.',
    labelNames: ['channel', 'entity_type'],
    registers: [registry],
    async collect() {
      const channels = await read();
      this.reset();
      for (const { channel, lag } of channels) for (const l of lag) this.set({ channel, entity_type: l.entityType }, l.pending);
    },
  });
  new Gauge({
    name: 'sync_gateway_channel_oldest_pending_age_seconds',
    help: 'Age of the oldest change a channel has not acknowledged, by channel and entity type; 0 when nothing is pending.',
    labelNames: ['channel', 'entity_type'],
    registers: [registry],
    async collect() {
      const channels = await read();
      this.reset();
      for (const { channel, lag } of channels) {
        for (const l of lag) this.set({ channel, entity_type: l.entityType }, l.oldestPendingAgeSeconds ?? 0);
      }
    },
  });
}
