import type { PrismaClient } from '../generated/prisma/client';
import { builder } from '../graphql/builder';
import { AckResult, BatchAckResult, PendingChanges, SyncResult, type SyncResultShape } from '../graphql/common-types';
import { DEFAULT_CONTEXT, acknowledgeMany, acknowledgeOne } from './tracked-service';
import type { TrackedTableName } from './tracked-table';

/**
 * The root fields every tracked entity has: the inbound sync mutation, single and batch
 * acknowledgements, and its pending count for dashboards.
 */
export function registerTrackedOperations(options: {
  table: TrackedTableName;
  /** Singular, for messages: "Product". */
  label: string;
  /** GraphQL names: syncProducts, acknowledgeProduct, acknowledgeProducts, pendingChanges.products. */
  names: { sync: string; ackOne: string; ackMany: string; pendingCount: string };
  /** The list argument of the sync mutation, as REST bodies name it: products, sale_orders… */
  listArg: string;
  maxItems: number;
  sync: (prisma: PrismaClient, records: readonly unknown[], context: string) => Promise<SyncResultShape>;
}): void {
  const { table, label, names, listArg, maxItems } = options;
  builder.mutationFields((t) => ({
    [names.sync]: t.field({
      type: SyncResult,
      description: `Inbound ${label.toLowerCase()} sync (up to ${maxItems} per request). Each record is validated alone: bad records are reported in errors, the good ones are stored. Fields left out keep their stored value.`,
      args: {
        [listArg]: t.arg({ type: ['JSON'], required: { list: true, items: false } }),
        context: t.arg.string({ description: `Sync context label stored on changed records; default "${DEFAULT_CONTEXT}".` }),
      },
      resolve: (_root, args, ctx) =>
        options.sync(ctx.prisma, args[listArg] as unknown[], (args.context as string | null | undefined) ?? DEFAULT_CONTEXT),
    }),
    [names.ackOne]: t.field({
      type: AckResult,
      description: `Acknowledges the changes of one ${label.toLowerCase()} up to the revision last listed. A change that arrived after that listing stays pending.`,
      args: { id: t.arg.int({ required: true }) },
      resolve: async (_root, args, ctx) => {
        await acknowledgeOne(ctx.prisma, table, label, args.id);
        return { success: true, acknowledged: 1 };
      },
    }),
    [names.ackMany]: t.field({
      type: BatchAckResult,
      description: `Acknowledges up to 1,000 records at once; unknown ids are reported in notFound.`,
      args: { ids: t.arg.intList({ required: true }) },
      resolve: (_root, args, ctx) => acknowledgeMany(ctx.prisma, table, args.ids),
    }),
  }));
  builder.objectField(PendingChanges, names.pendingCount, (t) =>
    t.int({
      resolve: async (_parent, _args, ctx) => {
        const rows = await ctx.prisma.$queryRawUnsafe<Array<{ n: number }>>(
          `SELECT count(*)::int AS n FROM "${table}" WHERE pending`,
        );
        return rows[0]?.n ?? 0;
      },
    }),
  );
}
