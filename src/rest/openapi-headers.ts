import { SAFE_REQUEST_ID } from '../http/request-id';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI is loose JSON

export const REQUEST_ID_PATTERN = SAFE_REQUEST_ID.source;

/** Sent on every response, errors included (SPEC 8). */
export const RATE_LIMIT_HEADERS: Json = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed per minute for this kind of request (read or write).',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the current window resets.', schema: { type: 'integer' } },
};
export const rateLimitHeaderRefs = (): Json =>
  Object.fromEntries(Object.keys(RATE_LIMIT_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]));
