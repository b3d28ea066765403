type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI is loose JSON

const ref = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
const header = (name: string): Json => ({ $ref: `#/components/headers/${name}` });

const readinessSchema: Json = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ready', 'not ready'] },
    checks: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description:
        'database, migrations, worker: ok, disabled or what is wrong (`unreachable: <code>: <reason>`, `failing: no successful claim for N s (<cause>)`). ' +
        'redis (with REDIS_URL): ok, or `degraded: …` while Redis is unreachable, which does not make the replica unready: it serves, with rate limits and live events per replica.',
    },
  },
};

/**
 * The routes outside the route table: probes, documents and metrics. Each lists exactly the
 * statuses it answers (test/rest/openapi-responses.test.ts drives them): the probes are never rate
 * limited and touch neither Redis nor (for /health) the database; the documents are served from memory.
 */
export function publicPaths(rateLimitHeaders: Json): Json {
  const ok = (summary: string, type: string, schema: Json, limited: boolean): Json => ({
    description: summary,
    headers: { 'X-Request-Id': header('X-Request-Id'), ...(limited ? rateLimitHeaders : {}) },
    content: { [type]: { schema } },
  });
  const get = (operationId: string, summary: string, description: string, responses: Json, secured = false): Json => ({
    get: {
      operationId,
      summary,
      description,
      tags: ['Service'],
      ...(secured ? {} : { security: [] }),
      parameters: [{ $ref: '#/components/parameters/RequestId' }],
      responses,
    },
  });
  const publicDocument = (operationId: string, summary: string, type: string, schema: Json, extra: Json = {}): Json =>
    get(operationId, summary, `${summary}. Public: no token needed (limited per client IP).`, {
      200: ok(summary, type, schema, true),
      ...extra,
      429: ref('RateLimited'),
    });
  const probe = 'A probe: public, never rate limited, never touches Redis.';
  return {
    '/health': get(
      'health',
      'Liveness of the process',
      `Liveness of the process. ${probe} Answers from memory, whatever the database does.`,
      {
        200: ok(
          'Liveness of the process',
          'application/json',
          {
            type: 'object',
            required: ['status', 'backend'],
            properties: { status: { type: 'string', enum: ['ok'] }, backend: { type: 'string', enum: ['embedded', 'postgresql'] } },
          },
          false,
        ),
      },
    ),
    '/api/doc': publicDocument(
      'openApiDocument',
      'This OpenAPI document',
      'application/json',
      { type: 'object' },
      {
        303: {
          description: 'A browser (Accept lists text/html before any JSON type) is sent to the human reference at /api/reference.',
          headers: {
            'X-Request-Id': header('X-Request-Id'),
            ...rateLimitHeaders,
            Location: { description: '/api/reference', required: true, schema: { type: 'string', enum: ['/api/reference'] } },
          },
        },
      },
    ),
    '/api/reference': publicDocument('apiReference', 'This document as a web page (Swagger UI, served by this service)', 'text/html', {
      type: 'string',
    }),
    '/ready': get(
      'readiness',
      'Readiness: database reachable, migrations applied, worker running',
      `Readiness: database reachable, migrations applied, worker running. ${probe}`,
      {
        200: ok('Ready', 'application/json', readinessSchema, false),
        503: {
          description: 'Not ready; checks says why',
          headers: { 'X-Request-Id': header('X-Request-Id') },
          content: { 'application/json': { schema: readinessSchema } },
        },
      },
    ),
    '/metrics': get(
      'metrics',
      'Prometheus metrics',
      'Prometheus text format. Needs a bearer token (or serve it without one on METRICS_PORT).',
      {
        200: ok('Metrics', 'text/plain', { type: 'string' }, true),
        401: ref('Unauthenticated'),
        429: ref('RateLimited'),
        500: ref('InternalServerError'),
        503: ref('ServiceUnavailable'),
      },
      true,
    ),
    '/.well-known/ai-context': publicDocument('aiContext', 'A guide to this API for language models', 'text/markdown', { type: 'string' }),
  };
}
