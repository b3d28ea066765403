import type { StoreClients } from '../db/store';
import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { AckItemInput, AckResult, BatchAckResult, PendingChanges, SyncResult } from './results.schema';
import { countPending } from './pending-counts';
import { countPendingOnChannel } from './channel-counts';
import type { SyncResultShape } from './results';
import { ledgerChannelOf, readerOf } from './reader.schema';
import { DEFAULT_CONTEXT, MAX_DRY_RUN_RECORDS, MAX_IDS_PER_ACK, acknowledgeMany, acknowledgeOne } from './tracked.service';
import { capitalize, type TrackedEntity, type TrackedPush } from './tracked-entity';
import type { TrackedTableName } from './tracked-entities';

/** The inbound push of an entity: validates and stores `records`, or in a dry run rolls back (ADR 0028). */
export type TrackedSyncRun = (
  db: StoreClients,
  records: readonly unknown[],
  context: string,
  dryRun: boolean,
  /** The caller's token (or admin account) name, recorded in the change history (ADR 0031). */
  pushedBy: string | null,
) => Promise<SyncResultShape>;

/**
 * The root fields of a tracked entity, named by its descriptor: batch acknowledgement and its
 * pending count for dashboards, and where it has them the single acknowledgement and the inbound
 * sync, which `run` carries out (required exactly when the descriptor declares a push).
 */
export function registerTrackedOperations<E extends TrackedEntity>(
  entity: E,
  ...sync: E extends { push: TrackedPush } ? [run: TrackedSyncRun] : []
): void {
  const table: TrackedTableName = entity.table;
  const { operations, push, noun }: TrackedEntity = entity;
  const label = capitalize(noun.one);
  const [run] = sync;
  if (push && operations.sync && run) registerSync(noun.one, operations.sync, push, run);
  if (operations.ackOne) registerAckOne(table, label, operations.ackOne);
  builder.mutationField(operations.ackMany, (t) =>
    t.field({
      ...allow('consume'),
      type: BatchAckResult,
      description:
        `Acknowledges up to ${MAX_IDS_PER_ACK.toLocaleString('en')} records at once: ids (each covering the revision this client was last listed) ` +
        'or items with the revision processed (exactly one of them). Unknown ids are reported in notFound, ids never listed to this client in notListed.',
      args: { ids: t.arg.intList(), items: t.arg({ type: [AckItemInput] }) },
      resolve: (_root, args, ctx) => acknowledgeMany(ctx.prisma, table, readerOf(ctx), args),
    }),
  );
  builder.objectField(PendingChanges, operations.pendingCount, (t) =>
    t.int({
      resolve: (_parent, _args, ctx) => {
        const channelId = ledgerChannelOf(ctx);
        return channelId === null ? countPending(ctx.prisma, table) : countPendingOnChannel(ctx.prisma, table, channelId);
      },
    }),
  );
}

/** What dry_run does, said once for every push (ADR 0028). */
export const DRY_RUN_DESCRIPTION =
  'true: run the whole push in a transaction that is rolled back. The answer is the usual one (what would be created, updated, skipped, rejected) ' +
  `plus records: per record {index, external_id, action, changedFields, previous}, at most ${MAX_DRY_RUN_RECORDS.toLocaleString('en')} (recordsOmitted counts the rest). ` +
  'Nothing is stored, no change becomes pending, and an Idempotency-Key sent with it is neither consumed nor replayed.';

function registerSync(noun: string, name: string, push: TrackedPush, run: TrackedSyncRun): void {
  const { listArg, maxItems } = push;
  builder.mutationFields((t) => ({
    [name]: t.field({
      ...allow('push'),
      type: SyncResult,
      description: `Inbound ${noun} sync (up to ${maxItems} per request). Each record is validated alone: bad records are reported in errors, the good ones are stored. Fields left out keep their stored value.`,
      args: {
        [listArg]: t.arg({ type: ['JSON'], required: { list: true, items: false } }),
        ...(!push.context
          ? {}
          : { context: t.arg.string({ description: `Sync context label stored on changed records; default "${DEFAULT_CONTEXT}".` }) }),
        dry_run: t.arg.boolean({ description: DRY_RUN_DESCRIPTION }),
      },
      resolve: (_root, args, ctx) => {
        const values = args as Record<string, unknown>;
        const context = (values.context as string | null | undefined) ?? DEFAULT_CONTEXT;
        return run(ctx, values[listArg] as unknown[], context, values.dry_run === true, ctx.auth?.name ?? null);
      },
    }),
  }));
}

function registerAckOne(table: TrackedTableName, label: string, name: string): void {
  builder.mutationField(name, (t) =>
    t.field({
      ...allow('consume'),
      type: AckResult,
      description:
        `Acknowledges the changes of one ${label.toLowerCase()}: up to revision when given, else up to the revision last listed to this client. ` +
        'A change that arrived later, or that only another client was listed, stays pending.',
      args: {
        id: t.arg.int({ required: true }),
        revision: t.arg.int({ description: 'The revision processed (from the change list); covers it and nothing newer.' }),
      },
      resolve: async (_root, args, ctx) => {
        await acknowledgeOne(ctx.prisma, table, label, readerOf(ctx), args);
        return { success: true, acknowledged: 1 };
      },
    }),
  );
}
