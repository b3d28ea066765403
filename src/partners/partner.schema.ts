import { registerTrackedOperations } from '../changes/tracked.schema';
import { ChangeRecord, TrackedRecord, idOrExternalId } from '../changes/tracked-fields';
import { allow } from '../graphql/access';
import { builder } from '../graphql/builder';
import { ledgerChannelOf, listingReaderOf } from '../changes/reader.schema';
import { changeListArgs, pageArgs, pageOf } from '../changes/pages.schema';
import { ON_CALLERS_CHANNEL } from '../changes/ledger-view.schema';
import { PARTNER_TYPES } from './partner.input';
import { partnerEntity } from './partner.entity';
import { listPartners, listUpdatedPartners, partnerHierarchy, syncPartners } from './partner.service';

export const PartnerTypeEnum = builder.enumType('PartnerType', {
  description: 'B billing, C contact, D delivery, O anonymous shipment.',
  values: PARTNER_TYPES,
});

/** A partner with pending changes: SPEC 2.1 plus parentExternalId, parentId and type. */
export const PartnerChange = builder.prismaObject('Partner', {
  variant: 'PartnerChange',
  description: 'A partner with pending changes (outbound change record).',
  interfaces: [ChangeRecord],
  fields: (t) => ({
    parentExternalId: t.exposeString('parentExternalId', { nullable: true }),
    parentId: t.exposeInt('parentId', { nullable: true, description: 'Middleware id of the parent partner.' }),
    type: t.field({ type: PartnerTypeEnum, nullable: true, resolve: (p) => p.type }),
  }),
});

export const Partner = builder.prismaObject('Partner', {
  interfaces: [TrackedRecord, ChangeRecord],
  fields: (t) => ({
    type: t.field({ type: PartnerTypeEnum, nullable: true, resolve: (p) => p.type }),
    parentExternalId: t.exposeString('parentExternalId', { nullable: true }),
    parentId: t.exposeInt('parentId', { nullable: true }),
    parent: t.relation('parent', { nullable: true }),
    children: t.relation('children', { query: { orderBy: { id: 'asc' } } }),
  }),
});

const PartnerHierarchy = builder.objectRef<{ root: Record<string, unknown> }>('PartnerHierarchy').implement({
  description:
    'The whole tree a partner belongs to. root is a node: the partner record (fields of PartnerChange) with children: [node]. ' +
    'It is JSON because a GraphQL selection cannot follow a tree of any depth; use Partner.children to walk it in GraphQL.',
  fields: (t) => ({ root: t.field({ type: 'JSONObject', resolve: (h) => h.root }) }),
});

const PartnerFilter = builder.inputType('PartnerFilter', {
  fields: (t) => ({
    pending: t.boolean({ description: `Only partners with (true) or without (false) pending changes. ${ON_CALLERS_CHANNEL}` }),
    type: t.field({ type: PartnerTypeEnum }),
    rootsOnly: t.boolean({ description: 'Only partners without a parent.' }),
  }),
});

builder.queryFields((t) => ({
  [partnerEntity.operations.list]: t.field({
    ...allow('feed'),
    type: pageOf('PartnerChangePage', PartnerChange),
    description: 'Partners with pending changes, ordered by updatedAt then id.',
    args: changeListArgs,
    resolve: (_root, args, ctx) => listUpdatedPartners(ctx, listingReaderOf(ctx), args),
  }),
  partnerHierarchy: t.field({
    ...allow('read'),
    type: PartnerHierarchy,
    description: `The whole tree the partner belongs to, from its root. Its nodes' isNew and changedFields: ${ON_CALLERS_CHANNEL}`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => partnerHierarchy(ctx.prisma, args.id, ledgerChannelOf(ctx)),
  }),
  partners: t.field({
    ...allow('read'),
    type: pageOf('PartnerPage', Partner),
    description: 'All partners for dashboards, newest change first.',
    args: { filter: t.arg({ type: PartnerFilter }), ...pageArgs },
    resolve: (_root, args, ctx) => listPartners(ctx.prisma, args.filter ?? {}, args, ledgerChannelOf(ctx)),
  }),
  partner: t.prismaField({
    ...allow('read'),
    type: Partner,
    nullable: true,
    description: 'One partner by middleware id or external id (exactly one of them).',
    args: { id: t.arg.int(), externalId: t.arg.string() },
    resolve: (query, _root, args, ctx) => ctx.prisma.partner.findUnique({ ...query, where: idOrExternalId(args) }),
  }),
}));

registerTrackedOperations(partnerEntity, syncPartners);
