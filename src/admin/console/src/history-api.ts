import { graphql, type ResultOf } from './graphql';

/** The history page's document: the last changes of one record (ADR 0031, see schema.graphql). */

/**
 * The entity types that keep a history (stock keeps none: volume). GraphQL takes `entityType` as a
 * String, so a test holds this list to the server's (test/admin/console-entity-types.test.ts).
 */
export const HISTORY_ENTITY_TYPES = ['product', 'partner', 'sale_order', 'purchase_order', 'price_item'] as const;
export type HistoryEntityType = (typeof HISTORY_ENTITY_TYPES)[number];

export const isHistoryEntityType = (value: string): value is HistoryEntityType =>
  (HISTORY_ENTITY_TYPES as readonly string[]).includes(value);

/** The server's maximum; the page shows the last ones and says when there may be older ones. */
export const HISTORY_LIMIT = 100;

export const HISTORY = graphql(`
  query History($entityType: String!, $externalId: String!, $limit: Int) {
    history(entityType: $entityType, externalId: $externalId, limit: $limit) {
      entityType
      externalId
      entries {
        recordId
        revision
        changedAt
        tokenName
        action
        pricelistExternalId
        changes {
          field
          old
          new
        }
      }
    }
  }
`);

export type HistoryEntry = ResultOf<typeof HISTORY>['history']['entries'][number];

/** The console's link to a record's history. */
export function historyHref(entityType: string, externalId?: string | null): string {
  const params = new URLSearchParams({ entityType });
  if (externalId) params.set('externalId', externalId);
  return `/admin/history?${params}`;
}
