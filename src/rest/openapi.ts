import type { GraphQLSchema } from 'graphql';
import { errorStatus, type ErrorCode } from '../errors/app-error';
import { documentIdempotency, idempotencyHeaders, idempotencyParameters } from './openapi-idempotency';
import { fullPath, openApiPath, type RestRoute } from './route-table';
import { GUARANTEES_MARKDOWN } from './guarantees';
import { sofaOpenApiDocument } from './sofa';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI is loose JSON

const ERROR_RESPONSES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_FAILED: 'Invalid input: malformed JSON, a bad or unknown query parameter or a bad field. details names each field.',
  UNAUTHENTICATED: 'Missing or invalid bearer token (or, for sign-in, wrong credentials).',
  FORBIDDEN: 'Not allowed (registration closed, or an admin operation without role admin).',
  CONFLICT:
    'The record exists already or is not in a state that allows this, or a request with the same Idempotency-Key is still running (Retry-After).',
  IDEMPOTENCY_KEY_REUSED: 'The Idempotency-Key was used in the last 24 hours for a different request (method, path, query or body).',
  NOT_FOUND: 'No record with this id.',
  PAYLOAD_TOO_LARGE: 'The body or the batch exceeds its limit.',
  UNSUPPORTED_MEDIA_TYPE: 'The body is not application/json.',
  RATE_LIMITED:
    'Rate limit exceeded (per token, per client IP without one); Retry-After says when to try again. Nothing of the request was applied.',
  INTERNAL_SERVER_ERROR: 'Unexpected error; the message is masked and the error is logged under requestId.',
  SERVICE_UNAVAILABLE:
    'The database is unavailable (down, restarting, refusing connections, or no pooled connection free within DATABASE_POOL_TIMEOUT_MS). ' +
    'Nothing of the request was applied; retry after Retry-After seconds. A Redis outage never causes it: rate limits then count per replica.',
};

/** Sent on every response, errors included (SPEC 8). */
const RATE_LIMIT_HEADERS: Json = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed per minute for this kind of request (read or write).',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the current window resets.', schema: { type: 'integer' } },
};
const rateLimitHeaderRefs = (): Json =>
  Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));

const responseName = (code: ErrorCode) =>
  code
    .toLowerCase()
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/**
 * SOFA's document, corrected where SOFA is wrong or silent: only the routes of the contract,
 * full /api paths, JSON bodies documented as bodies (not as query parameters), item schemas
 * and batch limits of the inbound bodies, bearer security, the error responses and examples.
 */
export function buildOpenApiDocument(schema: GraphQLSchema, routes: readonly RestRoute[]): Json {
  const sofa = sofaOpenApiDocument(schema, routes) as Json;
  const paths: Json = {};
  for (const route of routes) {
    const sofaOp: Json = sofa.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
    if (!sofaOp) throw new Error(`SOFA generated no operation for ${route.method} ${route.path}`);
    const path = openApiPath(fullPath(route));
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = correctOperation(route, sofaOp);
  }
  Object.assign(paths, publicPaths());

  const schemas: Json = { ...markNullableFields(sofa.components.schemas), Error: errorSchema() };
  for (const route of routes) {
    for (const list of Object.values(route.bodyLists ?? {})) {
      if (list.items) schemas[list.items.name] = list.items.schema;
    }
    Object.assign(schemas, route.responseSchema?.components);
  }
  const doc: Json = {
    openapi: '3.0.3',
    info: {
      title: 'sync-gateway',
      version: '1.0.0',
      description:
        'Middleware between an ERP and a webshop. The ERP pushes records; the webshop polls change lists and acknowledges them. ' +
        'The same operations are served as GraphQL at /graphql. A guide for language models is at /.well-known/ai-context. ' +
        'Request bodies are limited to 10 MB by default (413 beyond); batch limits are given per route (maxItems). ' +
        'A query parameter an operation does not list is a 400 naming it (a misspelt filter must not return every row). ' +
        'Every GET also answers HEAD (same headers, no body); OPTIONS answers 204 with Allow; another method answers 405 with Allow. ' +
        'JSON answers are application/json; charset=utf-8. A human-readable reference of this document is at /api/reference.\n\n' +
        GUARANTEES_MARKDOWN,
      license: { name: 'Proprietary', url: 'https://example.com/license' },
    },
    servers: [{ url: '/', description: 'This service' }],
    security: [{ bearerAuth: [] }],
    tags: [...new Set(routes.map((r) => r.tag)), 'Service'].map((name) => ({ name, description: `${name} endpoints` })),
    paths,
    components: {
      headers: {
        ...RATE_LIMIT_HEADERS,
        ...idempotencyHeaders,
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
      },
      parameters: idempotencyParameters,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API token> (npx sync-gateway token create).' },
      },
      schemas,
      responses: Object.fromEntries(
        (Object.keys(ERROR_RESPONSES) as ErrorCode[]).map((code) => [
          responseName(code),
          {
            description: ERROR_RESPONSES[code],
            headers: {
              ...rateLimitHeaderRefs(),
              ...(code === 'RATE_LIMITED' || code === 'CONFLICT' || code === 'SERVICE_UNAVAILABLE'
                ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } }
                : {}),
            },
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Error' },
                example: { error: { code, message: ERROR_RESPONSES[code], requestId: '0b7c1a4e-5f1d-4a58-9b1e-3f4f0c2d9e10' } },
              },
            },
          },
        ]),
      ),
    },
  };
  return pruneUnusedSchemas(doc);
}

function correctOperation(route: RestRoute, sofaOp: Json): Json {
  const hasBody = route.method === 'POST';
  const bodyProps: Json = hasBody ? { ...(sofaOp.requestBody?.content?.['application/json']?.schema?.properties ?? {}) } : {};
  const required: string[] = hasBody ? [...(sofaOp.requestBody?.content?.['application/json']?.schema?.required ?? [])] : [];
  const parameters = ((sofaOp.parameters ?? []) as Json[]).filter(
    (p) => p.in === 'path' || !hasBody || route.queryArgs?.includes(p.name) || route.queryOrBodyArgs?.includes(p.name),
  );
  for (const p of parameters) {
    if (p.schema?.description && !p.description) {
      p.description = p.schema.description;
      delete p.schema.description;
    }
    if (route.paginated && p.name === 'limit') Object.assign(p.schema, { minimum: 1, default: 50 });
    if (route.paginated && p.name === 'offset') Object.assign(p.schema, { minimum: 0, default: 0 });
  }
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  for (const name of [...(route.queryArgs ?? []), ...pathParams]) delete bodyProps[name];
  for (const [name, list] of Object.entries(route.bodyLists ?? {})) {
    if (!bodyProps[name]) continue;
    bodyProps[name] = {
      ...bodyProps[name],
      maxItems: list.maxItems,
      ...(list.items ? { items: { $ref: `#/components/schemas/${list.items.name}` } } : {}),
    };
  }

  const op: Json = {
    operationId: route.field.split('.')[1],
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    ...(route.public ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
  };
  if (hasBody && Object.keys(bodyProps).length > 0) {
    const envelope: Json = {
      type: 'object',
      properties: bodyProps,
      required: required.filter((r) => bodyProps[r]),
      ...(route.strictBody ? { additionalProperties: false } : {}),
    };
    if (!envelope.required.length) delete envelope.required;
    const single = route.singleItemArg && route.bodyLists?.[route.singleItemArg]?.items;
    op.requestBody = {
      required: required.some((r) => bodyProps[r]) || Boolean(route.singleItemArg),
      content: {
        'application/json': {
          schema: single ? { oneOf: [envelope, { $ref: `#/components/schemas/${single.name}` }] } : envelope,
          ...(route.example.request ? { example: route.example.request } : {}),
        },
      },
    };
  }
  const okStatus = Object.keys(sofaOp.responses ?? { 200: {} })[0] ?? '200';
  const okContent = route.responseSchema
    ? { schema: route.responseSchema.schema }
    : sofaOp.responses?.[okStatus]?.content?.['application/json'];
  op.responses = {
    [okStatus]: {
      description: route.summary,
      headers: {
        ...rateLimitHeaderRefs(),
        ...(route.location
          ? {
              Location: {
                description: `Where the new resource is: ${openApiPath(fullPath({ path: route.location }))}.`,
                schema: { type: 'string' },
              },
            }
          : {}),
      },
      content: { 'application/json': { ...(okContent ?? {}), example: route.example.response } },
    },
    ...errorRefs(route),
  };
  documentIdempotency(route, op, (code) => ({ $ref: `#/components/responses/${responseName(code)}` }));
  return op;
}

/** The query parameters the document lists for a route: the REST edge refuses any other. */
export function documentedQueryParameters(doc: Json, route: RestRoute): Set<string> {
  const op: Json | undefined = doc.paths[openApiPath(fullPath(route))]?.[route.method.toLowerCase()];
  return new Set(((op?.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => String(p.name)));
}

function errorRefs(route: RestRoute): Json {
  // A public route answers 401 only for a failed sign-in, which is its own business.
  const codes: ErrorCode[] = ['VALIDATION_FAILED', 'UNAUTHENTICATED'];
  if (route.public && route.field !== 'Mutation.login') codes.splice(1, 1);
  codes.push(...(route.extraErrors ?? []));
  if (route.path.includes(':')) codes.push('NOT_FOUND');
  if (route.method === 'POST') codes.push('PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  codes.push('RATE_LIMITED', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE');
  return Object.fromEntries(codes.map((c) => [String(errorStatus[c]), { $ref: `#/components/responses/${responseName(c)}` }]));
}

function errorSchema(): Json {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', enum: Object.keys(errorStatus) },
          message: { type: 'string' },
          details: {
            type: 'array',
            items: {
              type: 'object',
              required: ['field', 'message'],
              properties: { field: { type: 'string', example: 'products[3].price' }, message: { type: 'string' } },
            },
          },
          requestId: { type: 'string', description: 'Quote it when reporting a problem; it is in the logs.' },
        },
      },
    },
  };
}

const readinessSchema: Json = {
  type: 'object',
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

function publicPaths(): Json {
  const op = (operationId: string, summary: string, type: string, schema: Json) => ({
    get: {
      operationId,
      summary,
      description:
        operationId === 'health' || operationId === 'readiness'
          ? `${summary}. Public: no token needed. A probe: never rate limited, never touches Redis, answers while Redis or the database is down.`
          : `${summary}. Public: no token needed (limited per client IP).`,
      tags: ['Service'],
      security: [],
      responses: {
        200: {
          description: summary,
          ...(operationId === 'health' || operationId === 'readiness' ? {} : { headers: rateLimitHeaderRefs() }),
          content: { [type]: { schema } },
        },
        // Listed for the probes too (the linter wants a 4XX), though they are exempt from the limits.
        429: { $ref: `#/components/responses/${responseName('RATE_LIMITED')}` },
      },
    },
  });
  return {
    '/health': op('health', 'Liveness of the process', 'application/json', {
      type: 'object',
      properties: { status: { type: 'string', enum: ['ok'] }, backend: { type: 'string', enum: ['pglite', 'postgresql'] } },
    }),
    '/api/doc': {
      get: {
        ...op('openApiDocument', 'This OpenAPI document', 'application/json', { type: 'object' }).get,
        responses: {
          ...op('openApiDocument', 'This OpenAPI document', 'application/json', { type: 'object' }).get.responses,
          303: {
            description: 'A browser (Accept lists text/html before any JSON type) is sent to the human reference at /api/reference.',
            headers: { Location: { description: '/api/reference', schema: { type: 'string' } } },
          },
        },
      },
    },
    '/api/reference': op('apiReference', 'This document as a web page (Swagger UI, served by this service)', 'text/html', {
      type: 'string',
    }),
    '/ready': {
      get: {
        ...op('readiness', 'Readiness: database reachable, migrations applied, worker running', 'application/json', readinessSchema).get,
        responses: {
          ...op('readiness', 'Ready', 'application/json', readinessSchema).get.responses,
          503: { description: 'Not ready; checks says why', content: { 'application/json': { schema: readinessSchema } } },
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        description: 'Prometheus text format. Needs a bearer token (or serve it without one on METRICS_PORT).',
        tags: ['Service'],
        responses: {
          200: { description: 'Metrics', headers: rateLimitHeaderRefs(), content: { 'text/plain': { schema: { type: 'string' } } } },
          401: { $ref: `#/components/responses/${responseName('UNAUTHENTICATED')}` },
          429: { $ref: `#/components/responses/${responseName('RATE_LIMITED')}` },
          503: { $ref: `#/components/responses/${responseName('SERVICE_UNAVAILABLE')}` },
        },
      },
    },
    '/.well-known/ai-context': op('aiContext', 'A guide to this API for language models', 'text/markdown', { type: 'string' }),
  };
}

/**
 * SOFA leaves nullable GraphQL fields out of `required` but does not say they may be null; a
 * GraphQL response always carries them, as null when absent.
 */
function markNullableFields(schemas: Json): Json {
  const out: Json = {};
  for (const [name, schema] of Object.entries(schemas as Json)) {
    if (schema?.type !== 'object' || !schema.properties) {
      out[name] = schema;
      continue;
    }
    const required = new Set<string>(schema.required ?? []);
    const properties: Json = {};
    for (const [prop, propSchema] of Object.entries(schema.properties as Json)) {
      // A schema without a type (the JSON scalar) admits null already; OpenAPI 3.0 forbids nullable there.
      if (required.has(prop) || (propSchema.type === undefined && !propSchema.$ref)) properties[prop] = propSchema;
      else if (propSchema.$ref) properties[prop] = { allOf: [{ $ref: propSchema.$ref }], nullable: true };
      else properties[prop] = { ...propSchema, nullable: true };
    }
    out[name] = { ...schema, properties };
  }
  return out;
}

/** Drops component schemas no operation reaches (GraphQL-only types such as Query). */
function pruneUnusedSchemas(doc: Json): Json {
  const schemas = doc.components.schemas as Json;
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
        const name = value.slice('#/components/schemas/'.length);
        if (!reached.has(name)) {
          reached.add(name);
          visit(schemas[name]);
        }
      } else visit(value);
    }
  };
  visit(doc.paths);
  visit(doc.components.responses);
  for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
  return doc;
}
