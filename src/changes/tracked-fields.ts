import { validationFailed } from '../errors/app-error';
import { builder } from '../graphql/builder';

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
  createdAt: Date;
  updatedAt: Date;
  acknowledgedAt: Date | null;
};

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
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Time of the last accepted change.' }),
  }),
});

/** A tracked record with its ledger state, for dashboards. */
export const TrackedRecord = builder.interfaceRef<TrackedRow>('TrackedRecord').implement({
  interfaces: [ChangeRecord],
  fields: (t) => ({
    pending: t.exposeBoolean('pending', { description: 'Has changes the webshop has not acknowledged.' }),
    revision: t.exposeInt('revision', { description: 'Number of accepted changes.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    acknowledgedAt: t.expose('acknowledgedAt', { type: 'DateTime', nullable: true }),
  }),
});

/** `where` for a lookup by middleware id or external id; exactly one must be given. */
export function idOrExternalId(args: { id?: number | null; externalId?: string | null }): { id: number } | { externalId: string } {
  if (args.id != null && args.externalId == null) return { id: args.id };
  if (args.externalId != null && args.id == null) return { externalId: args.externalId };
  throw validationFailed([{ field: 'id', message: 'Give exactly one of id and externalId' }]);
}
