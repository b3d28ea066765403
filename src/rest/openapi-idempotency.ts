import { IDEMPOTENCY_HEADER, MAX_KEY_LENGTH, REPLAYED_HEADER } from '../idempotency/idempotency-key';
import type { RestRoute } from '../routing/route-table';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI is loose JSON

/** The routes that honour Idempotency-Key: every POST that needs a token. */
export const takesIdempotencyKey = (route: RestRoute): boolean => route.method === 'POST' && !route.public;

export const idempotencyParameters: Json = {
  IdempotencyKey: {
    name: IDEMPOTENCY_HEADER,
    in: 'header',
    required: false,
    description:
      'Makes a retry safe (docs/adr/0013). Send a new unique value (a UUID) with each new request and the same value when you retry it. ' +
      'Within 24 hours the same key with the same method, path, query and body bytes gets the stored status and body of the first answer ' +
      `(with \`${REPLAYED_HEADER}: true\`) instead of running again; 2xx and 4xx answers are kept, 5xx answers are not (the retry runs). ` +
      'The same key with a different request is a 422; while the first request is still running, a 409 with Retry-After. ' +
      `Keys are per token, 1 to ${MAX_KEY_LENGTH} printable ASCII characters (400 otherwise). Not available for GraphQL mutations.`,
    schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH, pattern: '^[\\x20-\\x7E]+$' },
    example: '5f0c6a52-7d1e-4b0e-9d43-2f8f4b1c9a77',
  },
};

export const idempotencyHeaders: Json = {
  [REPLAYED_HEADER]: {
    description: `true when this is the stored answer of an earlier request with the same ${IDEMPOTENCY_HEADER}; absent otherwise.`,
    schema: { type: 'string', enum: ['true'] },
  },
};

/** Adds the header parameter, the replay header and the 409/422 answers to a POST operation. */
export function documentIdempotency(
  route: RestRoute,
  op: Json,
  errorResponseRef: (code: 'CONFLICT' | 'IDEMPOTENCY_KEY_REUSED') => Json,
): void {
  if (!takesIdempotencyKey(route)) return;
  op.parameters = [...(op.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
  // The error answers are shared $refs (no siblings allowed): the parameter's description says they are replayed too.
  for (const [status, response] of Object.entries(op.responses as Json)) {
    if (status.startsWith('2'))
      response.headers = { ...response.headers, [REPLAYED_HEADER]: { $ref: `#/components/headers/${REPLAYED_HEADER}` } };
  }
  op.responses['409'] ??= errorResponseRef('CONFLICT');
  op.responses['422'] = errorResponseRef('IDEMPOTENCY_KEY_REUSED');
}
