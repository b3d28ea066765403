import type { RestRoute } from '../routing/route-table';
import { DEFAULT_HISTORY_LIMIT, HISTORY_TYPES, MAX_HISTORY_LIMIT } from './history.service';

export const historyRoutes: RestRoute[] = [
  {
    field: 'Query.history',
    method: 'GET',
    path: '/v1/history/:entityType/:externalId',
    tag: 'History',
    summary: "One record's last changes: time, revision, token, each field before and after",
    description:
      `entityType: ${HISTORY_TYPES.join(', ')} (stock keeps no history; it and any other value are a 400 naming entityType). ` +
      "For price_item, externalId is the product's external id and the entries are those of its items in every pricelist (pricelistExternalId names it). " +
      `Entries newest first; limit 1 to ${MAX_HISTORY_LIMIT} (default ${DEFAULT_HISTORY_LIMIT}; outside is a 400). ` +
      "Each entry: recordId, revision, changedAt (the record's updatedAt for that revision), tokenName (the API token that pushed it), " +
      'action (created or updated) and changes [{field, old, new}] (old is null for a created record). ' +
      'A record the middleware does not know is a 404; a known record whose entries retention removed (RETENTION_HISTORY_DAYS, default 90) has none. ' +
      'Written in the push transaction: only accepted changes, never an unchanged, stale-skipped or dry-run record, nor a resync. Any API token may read it, as the change lists.',
    example: {
      response: {
        entityType: 'product',
        externalId: 'SKU-1001',
        entries: [
          {
            recordId: 42,
            revision: 3,
            changedAt: '2026-11-22T08:31:00.000Z',
            tokenName: 'erp-prod',
            action: 'updated',
            changes: [{ field: 'price', old: 19.9, new: 17.5 }],
            pricelistExternalId: null,
          },
        ],
      },
    },
  },
];
