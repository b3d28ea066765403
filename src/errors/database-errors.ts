import { AppError, errorResponse } from './app-error';

/**
 * What a client is told while the database cannot serve: the one 503 of the service. The details
 * (host, query, stack) go to the log only; `code` and `reason` are safe to show (no host, no SQL).
 */
export type DatabaseOutage = { code: string; reason: string };

/** Seconds a client should wait before retrying a request refused during an outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

export const OUTAGE_MESSAGE = 'The database is unavailable; nothing was applied. Retry after the Retry-After delay.';

/** Prisma's codes for "could not reach / lost / waited too long for" the database. */
const PRISMA_OUTAGE_CODES: Record<string, string> = {
  P1001: "can't reach the database server",
  P1002: 'the database server timed out',
  P1008: 'the operation timed out',
  P1017: 'the server closed the connection',
  P2024: 'timed out waiting for a connection from the pool',
};

/** Driver adapter error kinds (@prisma/driver-adapter-utils) that mean the database is unavailable. */
const ADAPTER_OUTAGE_KINDS: Record<string, string> = {
  DatabaseNotReachable: "can't reach the database server",
  ConnectionClosed: 'the connection was closed',
  SocketTimeout: 'the connection timed out',
  TooManyConnections: 'too many connections',
  TlsConnectionError: 'the TLS connection failed',
};

/** PostgreSQL SQLSTATEs that say "not now" rather than "your request is wrong". */
function describeSqlState(code: string, message: string): string | undefined {
  if (code.startsWith('08')) return 'connection failure';
  switch (code) {
    case '57P01':
      return 'the server terminated the connection (administrator command)';
    case '57P02':
      return 'the server is shutting down (crash)';
    case '57P03':
      return 'the server is starting up or not accepting connections';
    case '57P05':
      return 'the connection was idle for too long';
    case '57014':
      return 'the statement timed out';
    case '53300':
      return 'too many connections';
    case '53000':
    case '53100':
    case '53200':
      return 'the server is out of resources';
    case '55000':
      // object_not_in_prerequisite_state also covers unrelated mistakes; only this one is an outage.
      return /not currently accepting connections/.test(message) ? 'the database is not accepting connections' : undefined;
    default:
      return undefined;
  }
}

/** Node socket errors and the messages pg and pg-pool throw without a code. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const DRIVER_MESSAGES: Array<[RegExp, string, string]> = [
  [/timeout exceeded when trying to connect/, 'POOL_TIMEOUT', 'timed out waiting for a connection from the pool'],
  [/Connection terminated/i, 'CONNECTION_TERMINATED', 'the connection was terminated'],
  [/Query read timeout/, 'QUERY_TIMEOUT', 'the database did not answer in time'],
  [/is not queryable|Client was closed and is not queryable/, 'CONNECTION_CLOSED', 'the connection was closed'],
  [/Can't reach database server/, 'P1001', "can't reach the database server"],
  [/sorry, too many clients already/, '53300', 'too many connections'],
];

type Inspectable = {
  code?: unknown;
  message?: unknown;
  syscall?: unknown;
  cause?: unknown;
  originalError?: unknown;
  meta?: { driverAdapterError?: { cause?: unknown } };
  kind?: unknown;
  originalCode?: unknown;
};

function classifyOne(error: Inspectable): DatabaseOutage | undefined {
  const code = typeof error.code === 'string' ? error.code : undefined;
  const message = typeof error.message === 'string' ? error.message : '';
  const prismaReason = code ? PRISMA_OUTAGE_CODES[code] : undefined;
  if (code && prismaReason) return { code, reason: prismaReason };
  if (typeof error.kind === 'string') {
    const kindReason = ADAPTER_OUTAGE_KINDS[error.kind];
    if (kindReason) return { code: error.kind, reason: kindReason };
    const sqlState = typeof error.originalCode === 'string' ? error.originalCode : code;
    const reason = sqlState ? describeSqlState(sqlState, message) : undefined;
    if (sqlState && reason) return { code: sqlState, reason };
  }
  if (code && SOCKET_CODES.has(code)) return { code, reason: `connection failure (${code})` };
  if (code && /^[0-9A-Z]{5}$/.test(code)) {
    const reason = describeSqlState(code, message);
    if (reason) return { code, reason };
  }
  for (const [pattern, patternCode, reason] of DRIVER_MESSAGES) if (pattern.test(message)) return { code: patternCode, reason };
  return undefined;
}

/**
 * Recognises a database outage in an error from Prisma (P1001, P2024, driver adapter errors
 * wrapping pg codes), from pg or pg-pool directly, or wrapped in a GraphQLError; undefined for
 * anything else (a constraint violation is the caller's problem, not an outage).
 */
export function databaseOutage(error: unknown): DatabaseOutage | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 8) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const inspectable = current as Inspectable;
    const found = classifyOne(inspectable);
    if (found) return found;
    queue.push(inspectable.meta?.driverAdapterError?.cause, inspectable.cause, inspectable.originalError);
    if (current instanceof AggregateError) queue.push(...current.errors);
  }
  return undefined;
}

/** A one-line description for /ready and logs: the code and a reason, never a host or a query. */
export function describeDatabaseError(error: unknown): string {
  const outage = databaseOutage(error);
  if (outage) return `${outage.code}: ${outage.reason}`;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? `${code}: unexpected database error` : 'unexpected database error';
}

/** For resolvers and services: the outage as the service's error, with the retry delay attached. */
export function serviceUnavailable(requestId?: string): AppError {
  const error = new AppError('SERVICE_UNAVAILABLE', OUTAGE_MESSAGE);
  Object.assign(error.extensions, {
    retryAfter: OUTAGE_RETRY_AFTER_SECONDS,
    ...(requestId ? { requestId } : {}),
    // Yoga takes the status and headers of /graphql responses from here, and drops the key.
    http: { status: 503, headers: { 'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS) } },
  });
  return error;
}

/** For HTTP plugins that answer before GraphQL runs (authentication, rate limiting). */
export function serviceUnavailableResponse(requestId?: string): Response {
  return errorResponse('SERVICE_UNAVAILABLE', OUTAGE_MESSAGE, undefined, requestId, {
    'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS),
  });
}
