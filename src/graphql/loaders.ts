import DataLoader from 'dataloader';
import type { PrismaClient, Stock } from '../generated/prisma/client';
import { readChannelStates, type ChannelRecordState } from '../changes/channel-view';
import type { TrackedTableName } from '../changes/tracked-entities';

/** Per-request batch loaders, so that list fields resolve relations in one query, not one per row. */
export function createLoaders(prisma: PrismaClient) {
  const channelStates = new Map<string, DataLoader<number, ChannelRecordState | undefined>>();
  return {
    stocksByProduct: new DataLoader<string, Stock[]>(async (productIds) => {
      const rows = await prisma.stock.findMany({
        where: { productExternalId: { in: [...productIds] } },
        orderBy: [{ supplierExternalId: 'asc' }],
      });
      return productIds.map((id) => rows.filter((r) => r.productExternalId === id));
    }),
    /**
     * A channel's state of records of one table (ADR 0045), for the ledger fields of rows read as
     * stored: one statement per table for every row of the request's answer at that depth.
     */
    channelState(table: TrackedTableName, channelId: number): DataLoader<number, ChannelRecordState | undefined> {
      const key = `${table}:${channelId}`;
      let loader = channelStates.get(key);
      if (!loader) {
        loader = new DataLoader(async (ids) => {
          const states = await readChannelStates(prisma, table, channelId, ids);
          return ids.map((id) => states.get(id));
        });
        channelStates.set(key, loader);
      }
      return loader;
    },
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
