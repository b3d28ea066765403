import { STATUS_CODES } from 'node:http';
import { GraphQLError } from 'graphql';

/** The one error vocabulary of the service, shared by REST bodies and GraphQL `extensions.code`. */
export const errorStatus = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** An Idempotency-Key sent again with a different request. */
  IDEMPOTENCY_KEY_REUSED: 422,
  /** A query whose answer would exceed MAX_RESPONSE_BYTES: the same request fails again, a smaller page does not (ADR 0043). */
  RESPONSE_TOO_LARGE: 422,
  RATE_LIMITED: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export type ErrorDetail = { field: string; message: string };

export type ErrorBody = {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[]; requestId?: string };
};

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorStatus, value);
}

/** Thrown by services and resolvers; GraphQL shows it as is, REST turns it into the error body. */
export class AppError extends GraphQLError {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message, { extensions: details ? { code, details } : { code } });
    this.name = 'AppError';
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export const notFound = (what: string, id: string | number): AppError =>
  new AppError('NOT_FOUND', `${what} ${JSON.stringify(id)} does not exist`);

export const validationFailed = (details: ErrorDetail[]): AppError =>
  new AppError(
    'VALIDATION_FAILED',
    details.length === 1 ? `Invalid ${details[0]!.field}: ${details[0]!.message}` : 'Invalid input',
    details,
  );

export function errorBody(code: ErrorCode, message: string, details?: ErrorDetail[], requestId?: string): ErrorBody {
  return {
    error: {
      code,
      message,
      ...(details && details.length > 0 ? { details } : {}),
      ...(requestId ? { requestId } : {}),
    },
  };
}

export function errorResponse(
  code: ErrorCode,
  message: string,
  details?: ErrorDetail[],
  requestId?: string,
  headers: Record<string, string> = {},
): Response {
  const status = errorStatus[code];
  return new Response(JSON.stringify(errorBody(code, message, details, requestId)), {
    status,
    statusText: STATUS_CODES[status] ?? '',
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}
