import type { GraphQLSchema } from 'graphql';
import { errorResponses, errorSchema } from './openapi-errors';
import { REQUEST_ID_PATTERN, RATE_LIMIT_HEADERS, rateLimitHeaderRefs } from './openapi-headers';
import { idempotencyHeaders, idempotencyParameters } from './openapi-idempotency';
import { correctOperation } from './openapi-operation';
import { routeRoles } from './route-roles';
import { fullPath, openApiPath, type RestRoute } from '../routing/route-table';
import { GUARANTEES_MARKDOWN } from './guarantees';
import { BOUNDS_MARKDOWN } from './request-bounds-doc';
import { publicPaths } from './openapi-public';
import { completeOutputSchemas } from './openapi-schemas';
import { sofaOpenApiDocument } from './sofa';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI is loose JSON

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
    paths[path][route.method.toLowerCase()] = correctOperation(route, sofaOp, routeRoles(schema, route));
  }
  Object.assign(paths, publicPaths(rateLimitHeaderRefs()));

  const schemas: Json = { ...completeOutputSchemas(schema, sofa.components.schemas), Error: errorSchema() };
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
        BOUNDS_MARKDOWN +
        GUARANTEES_MARKDOWN,
      license: { name: 'Proprietary' },
    },
    servers: [{ url: '/', description: 'This service' }],
    security: [{ bearerAuth: [] }],
    tags: [...new Set(routes.map((r) => r.tag)), 'Service'].map((name) => ({ name, description: `${name} endpoints` })),
    paths,
    components: {
      headers: {
        ...RATE_LIMIT_HEADERS,
        ...idempotencyHeaders,
        'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', minimum: 1 } },
        'X-Request-Id': {
          description:
            'The id of this request in the logs: the one the client sent when valid, else a new UUID. Error bodies repeat it as requestId.',
          required: true,
          schema: { type: 'string', pattern: REQUEST_ID_PATTERN },
        },
      },
      parameters: {
        ...idempotencyParameters,
        RequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description:
            'Your id for this request (1 to 128 letters, digits, `_`, `.`, `:` or `-`): logged and sent back in X-Request-Id. Another value is replaced by a new UUID.',
          schema: { type: 'string', pattern: REQUEST_ID_PATTERN },
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer <API token> (node bin/sync-gateway.js token create --name <name> --role <role>).',
        },
      },
      schemas,
      responses: errorResponses(),
    },
  };
  return pruneUnusedSchemas(doc);
}

/** The query parameters the document lists for a route: the REST edge refuses any other. */
export function documentedQueryParameters(doc: Json, route: RestRoute): Set<string> {
  const op: Json | undefined = doc.paths[openApiPath(fullPath(route))]?.[route.method.toLowerCase()];
  return new Set(((op?.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => String(p.name)));
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
