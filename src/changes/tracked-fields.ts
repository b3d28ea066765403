import { validationFailed } from '../errors/app-error';
import { builder } from '../graphql/builder';
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
    isNew: t.exposeBoolean('isNew', { description: 'True until the record is first acknowledged.' }),
    changedFields: t.exposeStringList('changedFields', {
      description: 'Fields changed since the last acknowledgement (all fields while isNew).',
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
        'For each field in changedFields, its value as of the last acknowledgement (null while isNew; a field only re-sent by a resync, whose value did not change, is left out).',
      resolve: (r) => previousValues(r),
    }),
  }),
});

/** A tracked record with its ledger state, for dashboards. */
export const TrackedRecord = builder.interfaceRef<TrackedRow>('TrackedRecord').implement({
  interfaces: [ChangeRecord],
  fields: (t) => ({
    pending: t.exposeBoolean('pending', { description: 'Has changes the webshop has not acknowledged.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    acknowledgedAt: t.expose('acknowledgedAt', { type: 'DateTime', nullable: true }),
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
