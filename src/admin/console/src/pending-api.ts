import { graphql, type ResultOf } from './graphql';

/**
 * The Pending page's document (see schema.graphql). `pendingRecords` marks nothing as listed, for
 * any caller: the console signs in as admin, and a listing mark in its name would let a webshop's
 * acknowledgement by id cover what only the console was shown (ADR 0002, 0044).
 */
export const PENDING_RECORDS = graphql(`
  query PendingRecords($entityType: String!, $limit: Int, $offset: Int, $channel: String) {
    pendingRecords(entityType: $entityType, limit: $limit, offset: $offset, channel: $channel) {
      payload {
        id
        revision
        key
        historyExternalId
        isNew
        changedFields
        previous
        current
        updatedAt
      }
      meta {
        total
        limit
        offset
      }
    }
  }
`);

export type PendingRecord = ResultOf<typeof PENDING_RECORDS>['pendingRecords']['payload'][number];
