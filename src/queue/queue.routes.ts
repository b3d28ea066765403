import type { RestRoute } from '../rest/route-table';

const exampleItem = {
  id: 5,
  status: 'failed',
  attempts: 6,
  maxAttempts: 6,
  nextAttemptAt: '2026-11-22T18:36:00.000Z',
  lastError: 'HTTP 503',
  lastStatusCode: 503,
  createdAt: '2026-11-22T08:00:00.000Z',
  completedAt: null,
  webhookConfigId: 2,
  failureId: 17,
  event: 'sync_failure',
  messageId: 'msg_5a1f0c2d9e104b7c8a4e5f1d4a589b1e',
  payload: {
    event: 'sync_failure',
    entity_type: 'product',
    external_id: 'SKU-1001',
    source: 'webshop',
    error_message: 'Price must not be negative',
    error_details: [],
    failed_at: '2026-11-22T08:00:00.000Z',
  },
};

export const queueRoutes: RestRoute[] = [
  {
    field: 'Query.outboundQueueStats',
    method: 'GET',
    path: '/v1/outbound-queue/stats',
    tag: 'Outbound queue',
    summary: 'Queue counts per status',
    description: 'Number of items per status: {pending, processing, completed, failed}.',
    example: { response: { pending: 3, processing: 1, completed: 1520, failed: 2 } },
  },
  {
    field: 'Query.outboundQueue',
    method: 'GET',
    path: '/v1/outbound-queue',
    tag: 'Outbound queue',
    summary: 'List queue items',
    description:
      'Newest first; optional status filter; limit (default 50, max 500) and offset. Delivery schedule: attempt 1 at once, then 1 min, 5 min, 30 min, 2 h and 8 h after the previous failure; ' +
      'an item still failing after attempt 6, answered 410 Gone, or 24 h after its schedule started becomes failed.',
    example: { query: '?status=failed', response: { payload: [exampleItem], meta: { total: 1, limit: 50, offset: 0 } } },
  },
  {
    field: 'Mutation.retryQueueItem',
    method: 'POST',
    path: '/v1/outbound-queue/:id/retry',
    extraErrors: ['CONFLICT'],
    tag: 'Outbound queue',
    summary: 'Retry one failed item',
    description:
      'The item goes back to pending, due now, with a fresh schedule (attempts start again from 0). 409 when it is not failed, 404 when unknown. No body.',
    strictBody: true,
    example: { response: { ...exampleItem, status: 'pending', attempts: 0, lastError: 'HTTP 503' } },
  },
  {
    field: 'Mutation.retryFailedQueueItems',
    method: 'POST',
    path: '/v1/outbound-queue/retry-failed',
    tag: 'Outbound queue',
    summary: 'Retry all failed items',
    description:
      'Retries every failed item whose attempts are below maxAttempts (every failed item when omitted); maxAttempts may be a query parameter or a body field. ' +
      'Items that used their whole schedule have 6 attempts, so maxAttempts=6 retries only those stopped early (410 Gone, 24 h limit). Answers {retried}.',
    queryOrBodyArgs: ['maxAttempts'],
    strictBody: true,
    example: { request: { maxAttempts: 6 }, response: { retried: 2 } },
  },
];
