import { graphql, type ResultOf } from './graphql';

/** The webhooks page's documents: configurations, their health, the test event (see schema.graphql). */

export const WEBHOOK_CONFIGS = graphql(`
  query WebhookConfigs {
    webhookConfigs {
      id
      url
      entityType
      direction
      active
      updatedAt
      health {
        state
        lastSuccessAt
        failingSince
        consecutiveFailedItems
        autoDisabledAt
      }
    }
    webhookDeliveryStats(minutes: 60) {
      webhookId
      attempts
      succeeded
      successRate
      avgDurationMs
      p95DurationMs
    }
  }
`);

export type WebhookDeliveryStats = ResultOf<typeof WEBHOOK_CONFIGS>['webhookDeliveryStats'][number];

export const CREATE_WEBHOOK = graphql(`
  mutation CreateWebhook(
    $url: String!
    $entityType: FailureEntityType!
    $direction: WebhookDirection!
    $secret: String!
    $active: Boolean
  ) {
    createWebhookConfig(url: $url, entityType: $entityType, direction: $direction, secret: $secret, active: $active) {
      id
    }
  }
`);

export const UPDATE_WEBHOOK = graphql(`
  mutation UpdateWebhook(
    $id: Int!
    $url: String
    $entityType: FailureEntityType
    $direction: WebhookDirection
    $secret: String
    $active: Boolean
  ) {
    updateWebhookConfig(id: $id, url: $url, entityType: $entityType, direction: $direction, secret: $secret, active: $active) {
      id
      url
      entityType
      direction
      active
      updatedAt
    }
  }
`);

export const REMOVE_WEBHOOK = graphql(`
  mutation RemoveWebhook($id: Int!) {
    removeWebhookConfig(id: $id) {
      id
    }
  }
`);

export const TEST_WEBHOOK = graphql(`
  mutation TestWebhook($id: Int!) {
    testWebhook(id: $id) {
      webhookId
      messageId
      outcome
      statusCode
      durationMs
      error
      responseBodyExcerpt
    }
  }
`);

export const ROTATE_WEBHOOK_SECRET = graphql(`
  mutation RotateWebhookSecret($id: Int!, $graceSeconds: Int) {
    rotateWebhookSecret(id: $id, graceSeconds: $graceSeconds) {
      id
      newSecret
      updatedAt
    }
  }
`);

export const OPERATIONAL_EVENTS = graphql(`
  subscription OperationalEvents {
    operationalEvents {
      name
      at
      webhookId
      url
      itemId
      failureId
      attempts
      error
      failingSince
    }
  }
`);

export type OperationalEvent = ResultOf<typeof OPERATIONAL_EVENTS>['operationalEvents'];
