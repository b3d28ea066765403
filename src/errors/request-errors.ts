import type { Logger } from 'pino';
import { errorResponse } from './app-error';
import { databaseOutage, serviceUnavailableResponse } from './database-errors';

/**
 * An error thrown by an HTTP plugin before GraphQL runs would otherwise reach the server adapter,
 * which answers with the stack trace as text/plain. Outages answer 503 with Retry-After; anything
 * else is a bug, logged with the request id and masked.
 */
export function requestErrorResponse(error: unknown, requestId: string | undefined, logger: Logger, during: string): Response {
  const outage = databaseOutage(error);
  if (outage) {
    logger.warn({ requestId, outage, during }, 'database unavailable; request refused with 503');
    return serviceUnavailableResponse(requestId);
  }
  logger.error({ err: error, requestId, during }, 'unexpected error before execution');
  return errorResponse('INTERNAL_SERVER_ERROR', 'Internal server error', undefined, requestId);
}
