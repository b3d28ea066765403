import type { RestRoute } from '../routing/route-table';

const exampleWebhook = {
  id: 2,
  url: 'https://shop.example.com/hooks/erp-failures',
  entityType: 'product',
  direction: 'to_webshop',
  active: true,
  kind: 'failures',
  createdAt: '2026-11-01T08:00:00.000Z',
  updatedAt: '2026-11-01T08:00:00.000Z',
  health: {
    state: 'failing',
    lastSuccessAt: '2026-11-22T17:03:12.400Z',
    failingSince: '2026-11-22T18:10:00.000Z',
    consecutiveFailedItems: 3,
    autoDisabledAt: null,
  },
  newSecret: null,
  signatureSwitchAt: null,
};

const healthDescription =
  '`health` tells how deliveries fare (test events never count): `state` healthy (the last attempt succeeded, or none was made), ' +
  'failing (attempts have failed since the last success; `failingSince` is the first of them) or disabled (inactive: by hand, or by the worker ' +
  'after failing WEBHOOK_DISABLE_AFTER_HOURS, default 120, then `autoDisabledAt` is set); `lastSuccessAt`; `consecutiveFailedItems`, the deliveries ' +
  'abandoned since the last success. Enabling a configuration again (updateWebhookConfig active: true) starts its health afresh. The secret is never returned.';

export const webhookRoutes: RestRoute[] = [
  {
    field: 'Query.webhookConfigs',
    method: 'GET',
    path: '/v1/webhooks',
    extraErrors: ['FORBIDDEN'],
    tag: 'Webhooks',
    summary: 'List webhook configurations with their health',
    description: `Admin token only. Every configuration, oldest first. ${healthDescription}`,
    example: { response: [exampleWebhook] },
  },
  {
    field: 'Query.webhookConfig',
    method: 'GET',
    path: '/v1/webhooks/:id',
    extraErrors: ['FORBIDDEN'],
    tag: 'Webhooks',
    summary: 'One webhook configuration with its health',
    description: `Admin token only. 404 when the configuration does not exist. ${healthDescription}`,
    example: { response: exampleWebhook },
  },
  {
    field: 'Mutation.testWebhook',
    method: 'POST',
    path: '/v1/webhooks/:id/test',
    extraErrors: ['FORBIDDEN'],
    tag: 'Webhooks',
    summary: 'Send a test event to a webhook configuration',
    description:
      'Admin token only. Sends a signed `webhook.test` event to the configuration at once (active or not), through the same delivery code as sync_failure events: ' +
      'the same X-Webhook-Signature (and X-Webhook-Signature-Next during a rotation) and Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature), ' +
      'the same SSRF guard, no redirects followed. ' +
      'The body is `{"event":"webhook.test","webhook_id":<id>,"entity_type":…,"direction":…,"sent_at":<ISO 8601>}`. ' +
      'Answers the attempt: outcome delivered (2xx), failed (`error` is `HTTP <status>`, `connection refused`, `timeout`…) or blocked (`blocked: <reason>`, nothing was sent), ' +
      'the HTTP status, the duration and the first 512 bytes of the answer. Whether the signature verifies is for the receiver to tell. ' +
      'Test events are not queued, not retried and not counted in delivery metrics. 404 when the configuration does not exist. No body.',
    strictBody: true,
    example: {
      response: {
        webhookId: 2,
        messageId: 'msg_0f8e2b6c1d8a4b7e9c3f5a1d2e4b6c8a',
        outcome: 'delivered',
        statusCode: 200,
        durationMs: 41,
        error: null,
        responseBodyExcerpt: '{"received":true}',
        body: '{"event":"webhook.test","webhook_id":2,"entity_type":"product","direction":"to_webshop","sent_at":"2026-11-23T02:00:00.000Z"}',
      },
    },
  },
];
