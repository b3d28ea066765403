import { gql } from '@urql/core';

/** The webhooks page's documents: configurations, their health, the test event (see schema.graphql). */

export type WebhookHealth = {
  state: 'healthy' | 'failing' | 'disabled';
  lastSuccessAt: string | null;
  failingSince: string | null;
  consecutiveFailedItems: number;
  autoDisabledAt: string | null;
};

export type WebhookConfig = {
  id: number;
  url: string;
  entityType: string;
  direction: string;
  active: boolean;
  updatedAt: string;
  health: WebhookHealth;
};

export const WEBHOOK_CONFIGS = gql`
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
  }
`;

export const CREATE_WEBHOOK = gql`
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
`;

export const UPDATE_WEBHOOK = gql`
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
`;

export const REMOVE_WEBHOOK = gql`
  mutation RemoveWebhook($id: Int!) {
    removeWebhookConfig(id: $id) {
      id
    }
  }
`;

export type WebhookTestResult = {
  webhookId: number;
  messageId: string;
  outcome: 'delivered' | 'failed' | 'blocked';
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBodyExcerpt: string | null;
};

export const TEST_WEBHOOK = gql`
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
`;

export const ROTATE_WEBHOOK_SECRET = gql`
  mutation RotateWebhookSecret($id: Int!, $graceSeconds: Int) {
    rotateWebhookSecret(id: $id, graceSeconds: $graceSeconds) {
      id
      newSecret
      updatedAt
    }
  }
`;

export type OperationalEvent = {
  name: 'webhook.disabled' | 'delivery.failed' | 'delivery.recovered';
  at: string;
  webhookId: number | null;
  url: string | null;
  itemId: number | null;
  failureId: number | null;
  attempts: number | null;
  error: string | null;
  failingSince: string | null;
};

export const OPERATIONAL_EVENTS = gql`
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
`;
