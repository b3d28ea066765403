import type { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { errorResponse, isErrorCode, type ErrorDetail } from '../errors/app-error';
import { databaseOutage, serviceUnavailableResponse } from '../errors/database-errors';

/**
 * SOFA's default answers any GraphQL error without an HTTP status with a 500 and GraphQL's
 * own body; REST clients get the one error body of the service instead.
 */
export function createRestErrorHandler(logger: Logger) {
  return (errors: ReadonlyArray<unknown>): Response => {
    const error = errors[0] as Partial<GraphQLError> | undefined;
    const code = error?.extensions?.code;
    if (isErrorCode(code)) {
      const details = error?.extensions?.details as ErrorDetail[] | undefined;
      const retryAfter = error?.extensions?.retryAfter;
      return errorResponse(
        code,
        error?.message ?? code,
        details,
        error?.extensions?.requestId as string | undefined,
        typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {},
      );
    }
    const status = (error?.extensions?.http as { status?: number } | undefined)?.status;
    if (status === 400) return errorResponse('VALIDATION_FAILED', error?.message ?? 'Invalid request');
    if (databaseOutage(error)) return serviceUnavailableResponse(error?.extensions?.requestId as string | undefined);
    logger.error({ err: error }, 'unexpected error in the REST layer');
    return errorResponse('INTERNAL_SERVER_ERROR', 'Internal server error');
  };
}
