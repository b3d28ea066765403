/**
 * The bounds on what one request may cost, as the OpenAPI document states them to client authors
 * (ADR 0043; docs/api.md, "What one request may cost", says the same with the operator's side). The
 * numbers are the defaults: the committed document is the served one, whatever the configuration.
 */
export const BOUNDS_MARKDOWN = [
  '## What one request may cost',
  '',
  '- **Nodes.** Before a request runs, the list items its operation may return are counted: each `limit` (its default when ' +
    'absent, its maximum when larger) multiplies the items of the lists nested in it. Over MAX_QUERY_NODES (default 50,000) the ' +
    'request is a 400 `VALIDATION_FAILED` naming the bound, the count and `limit`. Every route here fits at `limit=500`: the largest ' +
    'page of `/api/v1/failures` and `/api/v1/outbound-queue` counts 5,500 (their nested error details and attempts counted as 10 each).',
  '- **Answer size.** A GET whose answer would exceed MAX_RESPONSE_BYTES (default 8 MiB) is a 422 `RESPONSE_TOO_LARGE` naming ' +
    '`limit`: ask for a smaller page. Other requests are unaffected. Writes are never cut: their effect is applied by then.',
  '- **Expensive queries** (200 nodes or more, EXPENSIVE_QUERY_NODES: a page of more than 199 records, or nested lists) run ' +
    'at most 2 at once per API token (MAX_EXPENSIVE_OPERATIONS_PER_TOKEN; 429 with Retry-After beyond) and one at a time per ' +
    'replica (MAX_EXPENSIVE_OPERATIONS), which then rests as long as the query took (at most 1 s); another waits its turn up to 5 s, then 503 ' +
    'with Retry-After. Polls of up to 199 records never wait, whatever else runs.',
  '',
  '',
].join('\n');
