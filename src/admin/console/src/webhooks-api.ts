import { gql } from '@urql/core';

/** The webhook page's documents beyond the configuration list (see schema.graphql). */

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
