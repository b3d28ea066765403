import { errorStatus, type ErrorCode } from '../errors/app-error';
import type { RestRoute } from '../routing/route-table';
import { rateLimitHeaderRefs } from './openapi-headers';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI is loose JSON

const ERROR_RESPONSES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_FAILED:
    'Invalid input: malformed JSON, a bad or unknown query parameter or a bad field, or a page that may return more than ' +
    'MAX_QUERY_NODES nodes (never at limit ≤ 500 with the default). details names each field.',
  UNAUTHENTICATED: 'Missing or invalid bearer token (or, for sign-in, wrong credentials).',
  FORBIDDEN:
    "Not allowed: the token's role may not call this operation (the message names the role and what it may do; x-roles lists who may), or registration is closed.",
  CONFLICT:
    'The record exists already or is not in a state that allows this, or a request with the same Idempotency-Key is still running (Retry-After).',
  IDEMPOTENCY_KEY_REUSED: 'The Idempotency-Key was used in the last 24 hours for a different request (method, path, query or body).',
  RESPONSE_TOO_LARGE:
    'The answer would exceed MAX_RESPONSE_BYTES (default 8 MiB): the same request fails again, a smaller page (limit, named in details) does not.',
  NOT_FOUND: 'No record with this id.',
  PAYLOAD_TOO_LARGE: 'The body or the batch exceeds its limit.',
  UNSUPPORTED_MEDIA_TYPE: 'The body is not application/json.',
  RATE_LIMITED:
    'Rate limit exceeded (per token, per client IP without one), or the token already runs MAX_EXPENSIVE_OPERATIONS_PER_TOKEN ' +
    'expensive queries; Retry-After says when to try again. Nothing of the request was applied.',
  INTERNAL_SERVER_ERROR: 'Unexpected error; the message is masked and the error is logged under requestId.',
  SERVICE_UNAVAILABLE:
    'The database is unavailable (down, restarting, refusing connections, or no pooled connection free within DATABASE_POOL_TIMEOUT_MS), ' +
    'or the replica runs MAX_EXPENSIVE_OPERATIONS expensive queries and none ended within EXPENSIVE_OPERATION_WAIT_MS. ' +
    'Nothing of the request was applied; retry after Retry-After seconds. A Redis outage never causes it: rate limits then count per replica.',
};

/** The component name of an error's response: VALIDATION_FAILED → ValidationFailed. */
export const responseName = (code: ErrorCode) =>
  code
    .toLowerCase()
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** A reference to an error's response in components.responses. */
export const errorResponseRef = (code: ErrorCode): Json => ({ $ref: `#/components/responses/${responseName(code)}` });

/** components.responses: one per error code, with its headers and an example body. */
export function errorResponses(): Json {
  return Object.fromEntries(
    (Object.keys(ERROR_RESPONSES) as ErrorCode[]).map((code) => [
      responseName(code),
      {
        description: ERROR_RESPONSES[code],
        headers: {
          'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
          ...rateLimitHeaderRefs(),
          ...retryAfter(code),
        },
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/Error' },
            example: { error: { code, message: ERROR_RESPONSES[code], requestId: '0b7c1a4e-5f1d-4a58-9b1e-3f4f0c2d9e10' } },
          },
        },
      },
    ]),
  );
}

/**
 * The error statuses a route answers, each one produced by test/rest/openapi-responses.test.ts:
 * 400 (a bad argument or an unknown query parameter) and 429 everywhere; 401 unless public
 * (sign-in's own 401 aside); 403 where some role may not call it (ADR 0044); 404 for a record named in the path (not for a path value that only
 * filters); 413 and 415 on every method that reads a body; 422 (RESPONSE_TOO_LARGE) on every query,
 * whose answer is bounded (ADR 0043); 500 and 503 wherever the database is involved, which on
 * /api/v1 is every route (token lookup, sign-in). Others per route (extraErrors).
 */
export function errorRefs(route: RestRoute, refusesSomeRole: boolean): Json {
  const codes: ErrorCode[] = ['VALIDATION_FAILED'];
  if (!route.public || route.field === 'Mutation.login') codes.push('UNAUTHENTICATED');
  if (refusesSomeRole) codes.push('FORBIDDEN');
  if (route.path.includes(':') && !route.pathFilters) codes.push('NOT_FOUND');
  codes.push(...(route.extraErrors ?? []));
  if (route.field.startsWith('Query.')) codes.push('RESPONSE_TOO_LARGE');
  if (route.method !== 'GET') codes.push('PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  codes.push('RATE_LIMITED', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE');
  const byStatus = [...new Set(codes)].sort((a, b) => errorStatus[a] - errorStatus[b]);
  return Object.fromEntries(byStatus.map((c) => [String(errorStatus[c]), { $ref: `#/components/responses/${responseName(c)}` }]));
}

/** Retry-After is always sent with a 429 and a 503; with a 409 only for an Idempotency-Key still in use. */
function retryAfter(code: ErrorCode): Json {
  if (code === 'RATE_LIMITED' || code === 'SERVICE_UNAVAILABLE') return { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };
  if (code === 'CONFLICT') {
    return {
      'Retry-After': {
        description: 'Sent when the Idempotency-Key is still in use: seconds to wait.',
        schema: { type: 'integer', minimum: 1 },
      },
    };
  }
  return {};
}

/** The error body every error response carries. */
export function errorSchema(): Json {
  return {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message', 'requestId'],
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
          requestId: {
            type: 'string',
            description: 'Quote it when reporting a problem; it is in the logs (and in the X-Request-Id header).',
          },
        },
      },
    },
  };
}
