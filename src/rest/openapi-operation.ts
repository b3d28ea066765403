import { documentIdempotency } from './openapi-idempotency';
import { errorRefs, errorResponseRef } from './openapi-errors';
import { rateLimitHeaderRefs } from './openapi-headers';
import { describePaging } from './openapi-schemas';
import { fullPath, openApiPath, type RestRoute } from '../routing/route-table';
import { ROLES, type Role } from '../auth/roles';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI is loose JSON

/**
 * One route's operation: SOFA's, with the parameters the REST edge reads, the JSON body as a
 * body (batch limits and item schemas), the success and error responses and their headers.
 */
export function correctOperation(route: RestRoute, sofaOp: Json, roles: readonly Role[] | undefined): Json {
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
    describePaging(p);
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
    description: roles ? `${route.description}\n\nRoles: ${roles.join(', ')}.` : route.description,
    tags: [route.tag],
    // Who may call it (ADR 0044); any other role is answered 403 FORBIDDEN.
    ...(roles ? { 'x-roles': [...roles] } : {}),
    ...(route.public ? { security: [] } : {}),
    parameters: [...parameters, { $ref: '#/components/parameters/RequestId' }],
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
        'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
        ...rateLimitHeaderRefs(),
        ...(route.location
          ? {
              Location: {
                description: `Where the new resource is: ${openApiPath(fullPath({ path: route.location }))}.`,
                required: true,
                schema: { type: 'string' },
              },
            }
          : {}),
      },
      content: { 'application/json': { ...(okContent ?? {}), example: route.example.response } },
    },
    ...errorRefs(route, roles !== undefined && roles.length < ROLES.length),
  };
  documentIdempotency(route, op, errorResponseRef);
  return op;
}
