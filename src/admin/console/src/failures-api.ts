import { graphql, type ResultOf } from './graphql';

/** The failures page's documents and the live failure feed's subscription (see schema.graphql). */

export const FAILURE_EVENTS = graphql(`
  subscription FailureEvents {
    syncFailure {
      failure_id
      entity_type
      external_id
      source
      error_message
      failed_at
    }
  }
`);

/** The fields of a row of the failures table, shared by the list and the detail. */
const FAILURE_ROW_FIELDS = graphql(`
  fragment FailureRowFields on FailureRecord {
    id
    entity_type
    external_id
    middleware_id
    source
    status
    error_message
    createdAt
    hasRawData
  }
`);

export type FailureEvent = ResultOf<typeof FAILURE_EVENTS>['syncFailure'];

export const FAILURES = graphql(
  `
    query Failures($status: FailureStatus, $entityType: FailureEntityType, $source: FailureSource, $limit: Int, $offset: Int) {
      failures(status: $status, entity_type: $entityType, source: $source, limit: $limit, offset: $offset) {
        payload {
          ...FailureRowFields
        }
        meta {
          total
          limit
          offset
        }
      }
    }
  `,
  [FAILURE_ROW_FIELDS],
);

export const FAILURE = graphql(
  `
    query Failure($id: Int!) {
      failure(id: $id) {
        ...FailureRowFields
        error_details {
          field
          message
        }
        raw_data
        resolvedAt
        resolvedBy
        resolutionNote
      }
    }
  `,
  [FAILURE_ROW_FIELDS],
);

export const RESOLVE_FAILURE = graphql(`
  mutation ResolveFailure($id: Int!, $note: String) {
    resolveFailure(id: $id, note: $note) {
      id
      status
      resolvedAt
      resolvedBy
      resolutionNote
    }
  }
`);
