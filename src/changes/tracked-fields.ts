import { validationFailed } from '../errors/app-error';
import { builder } from '../graphql/builder';
import { channelViewOf, ON_CALLERS_CHANNEL } from './ledger-view.schema';
import { previousValues } from './previous-values';

export { previousValues } from './previous-values';

/** What every tracked row has (products, partners, sale orders, purchase orders). */
type TrackedRow = {
  id: number;
  externalId: string;
  erpId: number | null;
  isNew: boolean;
  pending: boolean;
  changedFields: string[];
  context: string;
  data: unknown;
  revision: number;
  /** The revision the reader's channel last acknowledged (ADR 0045). */
  ackedRevision: number;
  /** {field: revision that last changed it}: a channel's changedFields are read from it (absent on change list rows). */
  fieldRevisions?: unknown;
  createdAt: Date;
  updatedAt: Date;
  acknowledgedAt: Date | null;
  pendingValues: unknown;
};

/** Shared by every outbound record that can be acknowledged (change records, price items, stock entries). */
export const REVISION_DESCRIPTION =
  'Number of accepted changes of this record. Acknowledge with it (?revision=N or items [{id, revision}]) to cover exactly this version and nothing newer.';

/** The outbound change record of SPEC 2.1; each entity's change type implements it. */
export const ChangeRecord = builder.interfaceRef<TrackedRow>('ChangeRecord').implement({
  description: 'An outbound change record (SPEC 2.1).',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'Middleware record id; used in the acknowledgement.' }),
    externalId: t.exposeString('externalId'),
    erpId: t.exposeInt('erpId', { nullable: true }),
    isNew: t.boolean({
      description: `True until the record is first acknowledged. ${ON_CALLERS_CHANNEL}`,
      resolve: (r, _args, ctx, info) => channelViewOf(r, ctx, info)?.then((v) => v.isNew) ?? r.isNew,
    }),
    changedFields: t.stringList({
      description: `Fields changed since the last acknowledgement (all fields while isNew). ${ON_CALLERS_CHANNEL}`,
      resolve: (r, _args, ctx, info) => channelViewOf(r, ctx, info)?.then((v) => v.changedFields) ?? r.changedFields,
    }),
    context: t.exposeString('context'),
    data: t.field({
      type: 'JSONObject',
      description: 'The fields as the ERP sent them.',
      resolve: (r) => r.data as Record<string, unknown>,
    }),
    updatedAt: t.expose('updatedAt', {
      type: 'DateTime',
      description: 'Time of the last accepted change; stamps follow commit order, so it is a safe cursor for since.',
    }),
    revision: t.exposeInt('revision', { description: REVISION_DESCRIPTION }),
    previous: t.field({
      type: 'JSONObject',
      nullable: true,
      description:
        'For each field in changedFields, its value as of the last acknowledgement (null while isNew; a field only re-sent by a resync, whose value did not change, is left out). ' +
        ON_CALLERS_CHANNEL,
      resolve: (r, _args, ctx, info) =>
        channelViewOf(r, ctx, info)?.then((v) => previousValues({ ...v, pendingValues: r.pendingValues })) ?? previousValues(r),
    }),
  }),
});

/** A tracked record with its ledger state, for dashboards. */
export const TrackedRecord = builder.interfaceRef<TrackedRow>('TrackedRecord').implement({
  interfaces: [ChangeRecord],
  fields: (t) => ({
    pending: t.boolean({
      description: `Has changes not acknowledged yet. ${ON_CALLERS_CHANNEL}`,
      resolve: (r, _args, ctx, info) => channelViewOf(r, ctx, info)?.then((v) => v.pending) ?? r.pending,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    acknowledgedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        "When channel default last acknowledged the record (null: never). Null for a token bound to another channel: a channel's acknowledgements keep no time (ADR 0045).",
      // Default's time would tell a bound caller of another consumer's acknowledgement: none rather than a wrong one.
      resolve: (r, _args, ctx) => ((ctx.auth?.channelId ?? null) === null ? r.acknowledgedAt : null),
    }),
  }),
});

/** `where` for a lookup by middleware id or external id; exactly one must be given. */
export function idOrExternalId(args: {
  id?: number | null | undefined;
  externalId?: string | null | undefined;
}): { id: number } | { externalId: string } {
  if (args.id != null && args.externalId == null) return { id: args.id };
  if (args.externalId != null && args.id == null) return { externalId: args.externalId };
  throw validationFailed([{ field: 'id', message: 'Give exactly one of id and externalId' }]);
}
