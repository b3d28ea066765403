import { DEFAULT_LIMIT, MAX_LIMIT } from '../changes/page';
import type { RequestBounds } from '../config';
import { fullPath, type RestRoute } from '../routing/route-table';

/**
 * GET /.well-known/ai-context: a Markdown guide for language models and newcomers, written from
 * the same route table as the REST routes and the OpenAPI document, so it cannot go stale.
 */
export function renderAiContext(routes: readonly RestRoute[], bounds: RequestBounds): string {
  const tags = [...new Set(routes.map((r) => r.tag))];
  return [
    '# sync-gateway',
    '',
    'Middleware between an ERP and a webshop. The ERP pushes records (POST). The service stores them, detects',
    'field-level changes and keeps them pending until the webshop has processed them. The webshop polls the change',
    'lists (GET) and acknowledges what it processed (DELETE or batch-delete).',
    '',
    '## Authentication',
    '',
    'Every endpoint needs `Authorization: Bearer <token>` except `GET /health`, `GET /api/doc` (OpenAPI 3) and this',
    'document. Tokens are created by an operator with `node bin/sync-gateway.js token create --name <name> --role <role>`',
    "(in the service's directory, where it reads the same configuration; `sync-gateway` where the package is installed globally).",
    'A role says what a token may do: `erp` pushes and reports failures as erp; `webshop` lists and acknowledges',
    'the change lists and reports failures as webshop; `viewer` only reads (its reads mark nothing as listed);',
    '`integration` is both sides (the default); `admin` everything. /api/doc lists the roles of every operation',
    '(`x-roles`); another role gets 403 FORBIDDEN naming the role and what it may do.',
    '',
    '## Conventions',
    '',
    '- JSON in and out (`Content-Type: application/json`).',
    `- Change lists take \`since\` (ISO 8601 timestamp, records updated after it), \`limit\` (default ${DEFAULT_LIMIT},`,
    `  values above ${MAX_LIMIT} are clamped to ${MAX_LIMIT}) and \`offset\` (default 0). They answer`,
    '  `{"payload": [...], "meta": {"total": n, "limit": n, "offset": n}}`, ordered by `updatedAt`, then `id`.',
    '- A change record: `id` (use it to acknowledge), `externalId`, `erpId`, `isNew` (true until first acknowledged),',
    '  `changedFields` (fields changed since the last acknowledgement), `context`, `data` (the fields as the ERP sent',
    '  them), `updatedAt`.',
    '- An acknowledgement covers the version you were shown. If the record changed after you listed it, it stays',
    '  pending and is listed again with only the newer fields. Acknowledging twice is harmless.',
    '- Inbound batches validate each record alone: bad records come back in `errors`, the others are stored.',
    '- Errors: `{"error": {"code": "VALIDATION_FAILED", "message": "...", "details": [{"field": "products[3].price",',
    '  "message": "..."}], "requestId": "..."}}` with status 400 (validation), 401, 403 (role), 404, 405, 409,',
    '  413 (body or batch too large), 415 (not JSON), 422 (Idempotency-Key reused, or an answer too large), 429 (rate limit; see Retry-After),',
    '  500 or 503 (database unavailable; see Retry-After). /api/doc lists per route the ones it answers. On `/graphql` the same',
    '  codes come as `{"errors": [{"message": "...", "extensions": {"code": "UNAUTHENTICATED"}}]}`, same HTTP status.',
    '- Send only the query parameters a route lists: any other (a misspelt filter) is a 400 naming it.',
    '- Retrying a POST safely: send `Idempotency-Key: <a new UUID per request>` and the same key on each retry. Within',
    '  24 hours a retry with the same body gets the first answer again (`Idempotent-Replayed: true`) instead of running',
    '  twice; the same key with another body is a 422, and a 409 (Retry-After) means the first attempt is still running.',
    '  Keys are per token, 1 to 255 printable ASCII characters. 5xx answers are not kept: the retry runs again.',
    '- Rate limits per token: 3,000 reads and 1,500 writes per minute (GraphQL queries are reads, mutations writes).',
    '  Every response carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (seconds).',
    '- The same operations exist in GraphQL at `/graphql` (the REST routes are generated from that schema).',
    '',
    ...renderBounds(bounds),
    '## Webhooks and live events',
    '',
    '- A reported failure (POST /api/v1/failures) is sent to the opposite system as an HTTP POST of',
    '  `{"event": "sync_failure", "failure_id", "entity_type", "external_id", "source", "error_message", "error_details", "failed_at"}`',
    '  (`failure_id`: resolve it with POST /api/v1/failures/{failure_id}/resolve).',
    '- Verify with a Standard Webhooks library: `new Webhook(secret).verify(body, headers)` (npm `standardwebhooks` or `svix`)',
    '  with the `whsec_…` secret as given (raw secrets of older configurations: `{ format: "raw" }`). `webhook-signature`',
    '  carries two `v1,` signatures while a rotated secret is in its grace period; either secret verifies. `X-Webhook-Signature`',
    '  is the hex HMAC-SHA256 of the raw body keyed by the same key bytes: during the grace by the old secret, with',
    '  `X-Webhook-Signature-Next` keyed by the new one; from `signatureSwitchAt` (in the rotation answer) by the new one alone.',
    '  Deduplicate on `webhook-id`: it is the same on retries.',
    '- `POST /api/v1/webhooks/{id}/test` (admin) sends a signed `{"event": "webhook.test", ...}`; ignore it or answer 2xx.',
    '- Answer 2xx to accept, 410 to stop further attempts; other answers are retried after 1 min, 5 min, 30 min, 2 h, 8 h.',
    '- Live: GraphQL subscription `syncFailure(entityType, source)` over SSE or graphql-ws at `/graphql`.',
    '',
    '## Endpoints',
    '',
    ...tags.flatMap((tag) => [`### ${tag}`, '', ...routes.filter((r) => r.tag === tag).flatMap(renderRoute)]),
  ].join('\n');
}

/** The bounds this server runs with (ADR 0043), so that a client can stay inside them. */
function renderBounds(b: RequestBounds): string[] {
  const n = (value: number) => value.toLocaleString('en-US');
  return [
    '## What one request may cost',
    '',
    `- **Nodes.** Before anything runs, the list items an operation may return are counted: each list's \`limit\``,
    `  (its default when absent, its maximum when larger) multiplies the items of the lists nested in it; a nested list`,
    `  without a limit counts as a fixed size (a product's \`priceItems\` and \`stock\`, a history entry's \`changes\`: 20).`,
    `  More than ${n(b.maxQueryNodes)} (MAX_QUERY_NODES) is refused with 400 \`VALIDATION_FAILED\`; the message and`,
    '  `extensions` (`bound`, `limit`, `nodes`) name the bound and the count. Every REST route fits at `limit=500`.',
    `- **Answer size.** A query whose answer would exceed ${n(b.maxResponseBytes)} bytes (MAX_RESPONSE_BYTES) fails`,
    '  alone with 422 `RESPONSE_TOO_LARGE`: ask for a smaller page. Mutations are never cut (their effect is applied).',
    `- **Expensive queries** (${n(b.expensiveQueryNodes)} nodes or more) run at most ${b.maxExpensivePerToken} at once per token`,
    `  (429 \`RATE_LIMITED\` with Retry-After beyond) and ${b.maxExpensiveOperations} at once per replica (an extra one waits up to`,
    `  ${n(b.expensiveWaitMs)} ms, then 503 with Retry-After). Polls of fewer records than that never wait.`,
    '',
  ];
}

function renderRoute(route: RestRoute): string[] {
  const path = fullPath(route).replace(/:(\w+)/g, '{$1}');
  const lines = [`#### ${route.method} ${path}`, '', `${route.summary}. ${route.description}`, ''];
  if (route.paginated) lines.push('Paginated: `since`, `limit`, `offset`; envelope `{payload, meta}`.', '');
  const example = route.example;
  lines.push('Example:', '', '```http', `${route.method} ${path}${example.query ?? ''}`);
  if (example.request !== undefined) lines.push('Content-Type: application/json', '', JSON.stringify(example.request));
  lines.push('```', '', '```json', JSON.stringify(example.response, null, 2), '```', '');
  return lines;
}
