import type { RestRoute } from '../routing/route-table';
import { DIGESTED_TYPES, ENTITY_TYPES } from './entity-types';
import { MAX_RECONCILE_ITEMS } from './reconciliation.service';
import { MAX_RESYNC_IDS } from './resync.service';

export const reconciliationRoutes: RestRoute[] = [
  {
    field: 'Mutation.resync',
    method: 'POST',
    path: '/v1/resync',
    tag: 'Reconciliation',
    summary: 'Mark records pending again (net-state replay)',
    description:
      `Admin only (403 otherwise). Body {"entity_type": one of ${ENTITY_TYPES.join(', ')}, "external_ids"?: [...], "since"?, "until"?, "partner_type"?, "direction"?}: ` +
      'every matching record becomes pending again with all its fields in changedFields, as if new to the webshop (isNew unchanged); its revision moves on ' +
      'and its updatedAt takes the change clock, so change lists paged with since see it and acknowledgements follow the usual revision rules. ' +
      `Filters combine: external_ids (stock and price_item: product external ids; 1 to ${MAX_RESYNC_IDS.toLocaleString('en')}, more is 413), ` +
      'since/until (ISO 8601, inclusive, on updatedAt; since after until is a 400), partner_type B|C|D|O (partner only), direction inbound|outbound (sale_order only). ' +
      'Query parameter dry_run=true counts the matching records and changes nothing. Answers {resynced: n}. ' +
      'An unknown entity_type, a filter for another entity type or an unknown body field is a 400 naming the field.',
    strictBody: true,
    queryArgs: ['dry_run'],
    bodyLists: { external_ids: { maxItems: MAX_RESYNC_IDS } },
    extraErrors: ['FORBIDDEN'],
    example: {
      request: { entity_type: 'product', since: '2026-11-21T00:00:00Z' },
      response: { resynced: 1250 },
    },
  },
  {
    field: 'Query.reconciliation',
    method: 'GET',
    path: '/v1/reconciliation',
    tag: 'Reconciliation',
    summary: 'Per entity type: records, pending, never acknowledged, oldest pending, last push and acknowledgement',
    description:
      'One entry per entity type (product, partner, sale_order, purchase_order, price_item, stock): records, pending (changes not acknowledged), ' +
      'neverAcknowledged, oldestPendingAt and its age in seconds (null when nothing is pending), lastPushAt (last accepted change) and lastAcknowledgedAt. ' +
      'Query parameter channel names the channel read (default: default); a token bound to a channel reads its own (naming another is a 403). ' +
      "On a channel other than default lastAcknowledgedAt is null: a channel's acknowledgements keep no time.",
    example: {
      response: {
        entities: [
          {
            entityType: 'product',
            records: 1200,
            pending: 3,
            neverAcknowledged: 1,
            oldestPendingAt: '2026-11-22T08:30:00.000Z',
            oldestPendingAgeSeconds: 95,
            lastPushAt: '2026-11-22T08:31:00.000Z',
            lastAcknowledgedAt: '2026-11-22T08:31:30.000Z',
          },
        ],
      },
    },
  },
  {
    field: 'Mutation.reconcile',
    method: 'POST',
    path: '/v1/reconciliation/:entityType',
    // An entity type outside the list is a 400, not a 404: the path names no record.
    pathFilters: true,
    tag: 'Reconciliation',
    summary: "Compare the webshop's records with the middleware's",
    description:
      `entityType: ${DIGESTED_TYPES.join(', ')} (another is a 400). Body {"items": [{"external_id", "digest", "field_digests"?}], "after"?, "to"?, "to_end"?, "resync"?}, ` +
      `1 to ${MAX_RECONCILE_ITEMS.toLocaleString('en')} items (more is 413). digest: SHA-256, 64 hex digits, of the UTF-8 bytes of the RFC 8785 (JCS) canonical JSON ` +
      "of the record's data object as last acknowledged (data exactly as the change list showed it); a malformed digest is a 400 naming the item. " +
      'Answers missing (acknowledged records not sent whose external_id, in byte order, is after "after" (exclusive; default: from the lowest sent) and up to "to" ' +
      '(inclusive; default the highest sent; to_end true: no upper bound); at most 10,000; a whole catalogue is checked in chunks of sorted ids, each with after = the last id of the previous chunk, the last with to_end), ' +
      'extra (sent but unknown here), mismatched [{external_id, fields}] (acknowledged, not pending, digest differs; fields names the differing fields when the item sent ' +
      'field_digests {field: SHA-256 of the canonical JSON of its value}, else null), pending (sent records with changes still to deliver: not compared), compared, ' +
      'and with resync true resynced: the missing and mismatched records are marked pending again in the same call (see POST /api/v1/resync); ' +
      'resync true needs role admin, as POST /api/v1/resync does (403 otherwise, and nothing is compared or changed).',
    strictBody: true,
    extraErrors: ['FORBIDDEN'],
    bodyLists: { items: { maxItems: MAX_RECONCILE_ITEMS } },
    example: {
      request: {
        items: [
          { external_id: 'SKU-1001', digest: '5b2c4f0e8d7c1a3b9e6f2d4c8a0b1e3f5d7c9a2b4e6f8d0c1a3b5e7f9d2c4a6b' },
          { external_id: 'SKU-1002', digest: '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0' },
        ],
        resync: true,
      },
      response: {
        compared: 2,
        missing: ['SKU-1003'],
        extra: [],
        mismatched: [{ external_id: 'SKU-1002', fields: null }],
        pending: [],
        resynced: 2,
      },
    },
  },
];
