import DataLoader from 'dataloader';
import type { PrismaClient, Stock } from '../generated/prisma/client';

/** Per-request batch loaders, so that list fields resolve relations in one query, not one per row. */
export function createLoaders(prisma: PrismaClient) {
  return {
    stocksByProduct: new DataLoader<string, Stock[]>(async (productIds) => {
      const rows = await prisma.stock.findMany({
        where: { productExternalId: { in: [...productIds] } },
        orderBy: [{ supplierExternalId: 'asc' }],
      });
      return productIds.map((id) => rows.filter((r) => r.productExternalId === id));
    }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
