import type { RestRoute } from '../routing/route-table';

const exampleAttempts = [
  {
    attempt: 2,
    startedAt: '2026-11-22T08:01:00.000Z',
    durationMs: 38,
    outcome: 'success',
    statusCode: 200,
    error: null,
    responseBody: '{"received":true}',
    retryAfter: null,
  },
  {
    attempt: 1,
    startedAt: '2026-11-22T08:00:00.000Z',
    durationMs: 112,
    outcome: 'http_error',
    statusCode: 503,
    error: 'HTTP 503',
    responseBody: '<html><body>Service Unavailable</body></html>',
    retryAfter: '30',
  },
];

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
    failure_id: 17,
    entity_type: 'product',
    external_id: 'SKU-1001',
    source: 'webshop',
    error_message: 'Price must not be negative',
    error_details: [],
    failed_at: '2026-11-22T08:00:00.000Z',
  },
  attemptLog: [{ ...exampleAttempts[1]!, attempt: 6, startedAt: '2026-11-22T16:36:00.000Z', retryAfter: null }],
};

export const queueRoutes: RestRoute[] = [
  {
    field: 'Query.outboundQueueStats',
    method: 'GET',
    path: '/v1/outbound-queue/stats',
    tag: 'Outbound queue',
    summary: 'Queue counts per status',
    description:
      'Number of items per status: {pending, processing, completed, failed}, and retrying: the pending items whose last attempt failed.',
    example: { response: { pending: 3, processing: 1, completed: 1520, failed: 2, retrying: 1 } },
  },
  {
    field: 'Query.outboundQueue',
    method: 'GET',
    path: '/v1/outbound-queue',
    tag: 'Outbound queue',
    summary: 'List queue items',
    description:
      'Newest first; optional filters status, failureId (the deliveries of one failure), messageId (the delivery of one webhook-id) ' +
      'and retrying=true (pending items whose last attempt failed); limit (default 50, max 500) and offset. Delivery schedule: attempt 1 at once, then 1 min, 5 min, 30 min, 2 h and 8 h after the previous failure; ' +
      'an item still failing after attempt 6, answered 410 Gone, or 24 h after its schedule started becomes failed.',
    example: { query: '?status=failed', response: { payload: [exampleItem], meta: { total: 1, limit: 50, offset: 0 } } },
  },
  {
    field: 'Query.outboundQueueItem',
    method: 'GET',
    path: '/v1/outbound-queue/:id',
    tag: 'Outbound queue',
    summary: 'One queue item with its attempt log',
    description:
      'The item with its payload and attemptLog: every attempt, newest first (at most 100), with its attempt number in its schedule, start, duration, ' +
      'outcome (success, http_error, timeout, network_error, blocked, gone), HTTP status, error ("HTTP 503", "timeout", "connection refused", "blocked: …"), ' +
      'the first 4 KB of the response body and the Retry-After header. Lists of items carry the attempt log too. 404 for an unknown id, 400 for an id that is not an integer.',
    example: {
      response: {
        ...exampleItem,
        status: 'completed',
        attempts: 2,
        completedAt: '2026-11-22T08:01:00.000Z',
        lastError: null,
        lastStatusCode: 200,
        attemptLog: exampleAttempts,
      },
    },
  },
  {
    field: 'Mutation.retryQueueItem',
    method: 'POST',
    path: '/v1/outbound-queue/:id/retry',
    extraErrors: ['CONFLICT'],
    tag: 'Outbound queue',
    summary: 'Retry a failed item or resend a completed one',
    description:
      'A failed item (retry) or a completed one (resend) goes back to pending, due now, with a fresh schedule (attempts start again from 0) and the same webhook-id: ' +
      'a receiver that deduplicates by webhook-id processes the event at most once, one that lost it processes it now. The attempt log keeps the earlier attempts. ' +
      '409 when it is pending or processing, 404 when unknown. No body.',
    strictBody: true,
    example: { response: { ...exampleItem, status: 'pending', attempts: 0, lastError: 'HTTP 503' } },
  },
  {
    field: 'Mutation.recoverQueueItems',
    method: 'POST',
    path: '/v1/outbound-queue/recover',
    tag: 'Outbound queue',
    summary: 'Recover the failed items of a time window',
    description:
      'Body {since, until?, status?}: every item of status (failed, the only value for now and the default) queued at or after since and before until ' +
      '(no upper bound when omitted) goes back to pending, due now, with a fresh schedule and the same webhook-id. Answers {recovered}. ' +
      '400 naming since when since is after until, or naming the field that is missing or not an ISO 8601 date-time.',
    strictBody: true,
    example: { request: { since: '2026-11-22T00:00:00.000Z', until: '2026-11-23T00:00:00.000Z' }, response: { recovered: 12 } },
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
