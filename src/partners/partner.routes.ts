import { LOOKUP_CHANNEL_RULE, trackedRoutes } from '../changes/tracked.routes';
import type { RestRoute } from '../routing/route-table';
import { partnerEntity } from './partner.entity';

const exampleRecord = {
  id: 12,
  externalId: 'CUST-7-DELIVERY',
  erpId: 3107,
  isNew: true,
  changedFields: ['name', 'parent_external_id', 'type'],
  context: 'erp_sync',
  data: { name: 'Warehouse gate 2' },
  updatedAt: '2026-11-22T08:30:00.000Z',
  revision: 3,
  previous: null,
  parentExternalId: 'CUST-7',
  parentId: 11,
  type: 'D',
};

const { revision: _listedRevision, previous: _previous, ...exampleNode } = exampleRecord;

/** The fields of a hierarchy node besides children, as partnerRecord() writes them. */
const partnerNodeFields = {
  id: { type: 'integer' },
  externalId: { type: 'string' },
  erpId: { type: 'integer', nullable: true },
  isNew: { type: 'boolean' },
  changedFields: { type: 'array', items: { type: 'string' } },
  context: { type: 'string' },
  data: { type: 'object', additionalProperties: true },
  updatedAt: { type: 'string', format: 'date-time' },
  parentExternalId: { type: 'string', nullable: true },
  parentId: { type: 'integer', nullable: true },
  type: { type: 'string', enum: ['B', 'C', 'D', 'O', null], nullable: true },
};

export const partnerRoutes: RestRoute[] = [
  ...trackedRoutes(partnerEntity, {
    rules:
      'external_id is required (1-255 characters); erp_id (integer), name (string), type (B billing, C contact, D delivery, O anonymous shipment) ' +
      'and parent_external_id are checked; every other field is kept in data and diffed too. ' +
      'A batch is applied parents first, whatever its order; a parent may be in the same batch or already stored. ' +
      'A record whose parent is unknown, or that is part of a circular reference (inside the batch or closed through stored partners), ' +
      'is rejected with an error on parent_external_id that names the cycle ("circular reference: A → B → A"); children of a rejected new partner are rejected too; the rest of the batch is stored.',
    listDescription: 'Records add parentExternalId, parentId (middleware id of the parent) and type. ',
    example: {
      input: { external_id: 'CUST-7-DELIVERY', type: 'D', parent_external_id: 'CUST-7', name: 'Warehouse gate 2' },
      record: exampleRecord,
    },
  }),
  {
    field: 'Query.partnerHierarchy',
    method: 'GET',
    path: `${partnerEntity.listPath}/:id/hierarchy`,
    tag: partnerEntity.tag,
    summary: 'The whole partner tree of a partner',
    description:
      'The tree the partner belongs to, from its root: {"root": node}, where a node is the partner record (the fields of the change list) ' +
      'with children: [node], children ordered by id, but without revision (acknowledge from the change list). Any depth. 404 for an unknown id. Reading it does not affect acknowledgements. ' +
      LOOKUP_CHANNEL_RULE,
    responseSchema: {
      components: {
        // The change-list fields without revision: a tree is not a listing, acknowledgements follow the change list.
        PartnerNode: {
          type: 'object',
          required: [...Object.keys(partnerNodeFields), 'children'],
          properties: {
            ...partnerNodeFields,
            children: { type: 'array', items: { $ref: '#/components/schemas/PartnerNode' } },
          },
        },
      },
      schema: { type: 'object', required: ['root'], properties: { root: { $ref: '#/components/schemas/PartnerNode' } } },
    },
    example: {
      response: {
        root: {
          ...exampleNode,
          id: 11,
          externalId: 'CUST-7',
          parentExternalId: null,
          parentId: null,
          type: 'B',
          data: { name: 'Example Ltd' },
          changedFields: [],
          isNew: false,
          children: [{ ...exampleNode, children: [] }],
        },
      },
    },
  },
];
