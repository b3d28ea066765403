import { gql } from '@urql/core';

/** The GraphQL documents of the queue page, the queue item page and a failure's deliveries (see schema.graphql). */

export type DeliveryAttempt = {
  attempt: number;
  startedAt: string;
  durationMs: number;
  outcome: 'success' | 'http_error' | 'timeout' | 'network_error' | 'blocked' | 'gone';
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  retryAfter: string | null;
};

export type QueueItem = {
  id: number;
  status: string;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: string;
  lastError: string | null;
  lastStatusCode: number | null;
  webhookConfigId: number | null;
  failureId: number | null;
  createdAt: string;
  completedAt: string | null;
};

export type QueueItemDetail = QueueItem & {
  event: string;
  messageId: string;
  payload: Record<string, unknown>;
  attemptLog: DeliveryAttempt[];
};

/** A configuration's id and URL: what a queue item's target is shown as. */
export type WebhookTarget = { id: number; url: string; active: boolean };

const ITEM_FIELDS = `
  id
  status
  attempts
  maxAttempts
  nextAttemptAt
  lastError
  lastStatusCode
  webhookConfigId
  failureId
  createdAt
  completedAt
`;

const ATTEMPT_FIELDS = `
  attemptLog {
    attempt
    startedAt
    durationMs
    outcome
    statusCode
    error
    responseBody
    retryAfter
  }
`;

export const QUEUE = gql`
  query Queue($status: QueueStatus, $limit: Int, $offset: Int) {
    outboundQueue(status: $status, limit: $limit, offset: $offset) {
      payload {
        ${ITEM_FIELDS}
      }
      meta {
        total
        limit
        offset
      }
    }
    outboundQueueStats {
      pending
      processing
      completed
      failed
    }
  }
`;

export const QUEUE_ITEM = gql`
  query QueueItem($id: Int!) {
    outboundQueueItem(id: $id) {
      ${ITEM_FIELDS}
      event
      messageId
      payload
      ${ATTEMPT_FIELDS}
    }
  }
`;

/** A failure has one delivery per configuration it was queued for: a page of 100 is all of them. */
export const FAILURE_DELIVERIES = gql`
  query FailureDeliveries($failureId: Int!) {
    outboundQueue(failureId: $failureId, limit: 100) {
      payload {
        ${ITEM_FIELDS}
        messageId
        ${ATTEMPT_FIELDS}
      }
      meta {
        total
        limit
        offset
      }
    }
  }
`;

/** Admin only: without it the console shows configuration ids instead of URLs. */
export const WEBHOOK_TARGETS = gql`
  query WebhookTargets {
    webhookConfigs {
      id
      url
      active
    }
  }
`;

export const RETRY_ITEM = gql`
  mutation RetryItem($id: Int!) {
    retryQueueItem(id: $id) {
      id
      status
      attempts
      nextAttemptAt
    }
  }
`;

export const RETRY_FAILED = gql`
  mutation RetryFailed {
    retryFailedQueueItems {
      retried
    }
  }
`;

export const RECOVER_WINDOW = gql`
  mutation RecoverWindow($since: DateTime!, $until: DateTime) {
    recoverQueueItems(since: $since, until: $until) {
      recovered
    }
  }
`;
