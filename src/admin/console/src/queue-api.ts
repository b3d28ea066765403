import { graphql, type ResultOf } from './graphql';

/** The GraphQL documents of the queue page, the queue item page and a failure's deliveries (see schema.graphql). */

const ITEM_FIELDS = graphql(`
  fragment QueueItemFields on OutboundQueueItem {
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
  }
`);

const ATTEMPT_FIELDS = graphql(`
  fragment AttemptLog on OutboundQueueItem {
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
  }
`);

export const QUEUE = graphql(
  `
    query Queue($status: QueueStatus, $retrying: Boolean, $messageId: String, $failureId: Int, $limit: Int, $offset: Int) {
      outboundQueue(status: $status, retrying: $retrying, messageId: $messageId, failureId: $failureId, limit: $limit, offset: $offset) {
        payload {
          ...QueueItemFields
          messageId
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
        retrying
      }
    }
  `,
  [ITEM_FIELDS],
);

export const QUEUE_ITEM = graphql(
  `
    query QueueItem($id: Int!) {
      outboundQueueItem(id: $id) {
        ...QueueItemFields
        event
        messageId
        payload
        ...AttemptLog
      }
    }
  `,
  [ITEM_FIELDS, ATTEMPT_FIELDS],
);

/** A failure has one delivery per configuration it was queued for: a page of 100 is all of them. */
export const FAILURE_DELIVERIES = graphql(
  `
    query FailureDeliveries($failureId: Int!) {
      outboundQueue(failureId: $failureId, limit: 100) {
        payload {
          ...QueueItemFields
          messageId
          ...AttemptLog
        }
        meta {
          total
          limit
          offset
        }
      }
    }
  `,
  [ITEM_FIELDS, ATTEMPT_FIELDS],
);

export type QueueItem = ResultOf<typeof ITEM_FIELDS>;
export type DeliveryAttempt = ResultOf<typeof ATTEMPT_FIELDS>['attemptLog'][number];

/** Admin only: without it the console shows configuration ids instead of URLs. */
export const WEBHOOK_TARGETS = graphql(`
  query WebhookTargets {
    webhookConfigs {
      id
      url
      active
    }
  }
`);

/** A configuration's id and URL: what a queue item's target is shown as. */
export type WebhookTarget = ResultOf<typeof WEBHOOK_TARGETS>['webhookConfigs'][number];

export const RETRY_ITEM = graphql(`
  mutation RetryItem($id: Int!) {
    retryQueueItem(id: $id) {
      id
      status
      attempts
      nextAttemptAt
    }
  }
`);

export const RETRY_FAILED = graphql(`
  mutation RetryFailed {
    retryFailedQueueItems {
      retried
    }
  }
`);

export const RECOVER_WINDOW = graphql(`
  mutation RecoverWindow($since: DateTime!, $until: DateTime) {
    recoverQueueItems(since: $since, until: $until) {
      recovered
    }
  }
`);
