import { gql } from '@urql/core';

/** The failures page's documents and the live failure feed's subscription (see schema.graphql). */

export type FailureEvent = {
  failure_id: number;
  entity_type: string;
  external_id: string | null;
  source: string;
  error_message: string;
  failed_at: string;
};

export const FAILURE_EVENTS = gql`
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
`;

export type FailureRow = {
  id: number;
  entity_type: string;
  external_id: string | null;
  middleware_id: number | null;
  source: string;
  status: string;
  error_message: string;
  createdAt: string;
  hasRawData: boolean;
};

export type FailureDetail = FailureRow & {
  error_details: Array<{ field: string; message: string }>;
  raw_data: unknown;
  resolvedAt: string | null;
  resolvedBy: string | null;
  resolutionNote: string | null;
};

/** The fields of a row of the failures table (FailureRow), shared by the list and the detail. */
const FAILURE_ROW_FIELDS = gql`
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
`;

export const FAILURES = gql`
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
  ${FAILURE_ROW_FIELDS}
`;

export const FAILURE = gql`
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
  ${FAILURE_ROW_FIELDS}
`;

export const RESOLVE_FAILURE = gql`
  mutation ResolveFailure($id: Int!, $note: String) {
    resolveFailure(id: $id, note: $note) {
      id
      status
      resolvedAt
      resolvedBy
      resolutionNote
    }
  }
`;
