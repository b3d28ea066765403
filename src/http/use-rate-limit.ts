import { getOperationAST, parse } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { errorResponse } from '../errors/app-error';
import type { ServerContext } from '../graphql/context';
import type { RateClass, RateLimiters } from '../rate-limits/limiters';
import type { StepPlugin } from './plugin-chain';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Dashboards and clients repeat a handful of documents: each is parsed once to be classed. Bounded
 * by size too (keys are whole documents; a huge one is parsed each time instead of kept).
 */
const operationClasses = new LRUCache<string, RateClass>({
  max: 1_000,
  maxSize: 2_000_000,
  maxEntrySize: 20_000,
  sizeCalculation: (_cls, key) => key.length,
});

/** A GraphQL query or subscription is a read and a mutation a write, whatever the HTTP method. */
function classify(request: Request, bodyText: string | undefined, pathname: string, graphqlEndpoint: string): RateClass {
  if (pathname !== graphqlEndpoint) return READ_METHODS.has(request.method) ? 'read' : 'write';
  try {
    const params =
      request.method === 'GET'
        ? Object.fromEntries(new URL(request.url).searchParams)
        : (JSON.parse(bodyText ?? '') as { query?: string; operationName?: string });
    if (typeof params.query !== 'string' || !params.query) return 'read';
    const key = `${params.operationName ?? ''}\u0000${params.query}`;
    let cls = operationClasses.get(key);
    if (cls === undefined) {
      cls = getOperationAST(parse(params.query), params.operationName)?.operation === 'mutation' ? 'write' : 'read';
      operationClasses.set(key, cls);
    }
    return cls;
  } catch {
    return 'read'; // not parseable: GraphQL answers it with a 400 without doing anything
  }
}

function clientIp(
  serverContext: ServerContext & { req?: { socket?: { remoteAddress?: string } } },
  request: Request,
  trustProxy: boolean,
): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  return serverContext.req?.socket?.remoteAddress ?? 'unknown';
}

export type RateLimitOptions = {
  limiters: RateLimiters;
  graphqlEndpoint: string;
  trustProxy: boolean;
  logger: Logger;
  onRejected?: (kind: RateClass) => void;
  /** Probes (GET /health, /ready) must answer while Redis or the database is down: never limited. */
  exemptPaths?: readonly string[];
};

/**
 * Keys on the caller the authentication step found (the client IP without one), and runs before
 * the bearer gate, so that every response (401s included) is counted and carries the
 * X-RateLimit-* headers; past the limit the request is answered 429 before anything is applied.
 */
export function useRateLimit(options: RateLimitOptions): StepPlugin<'body' | 'caller', 'counted'> {
  const exempt = new Set(options.exemptPaths ?? []);
  return {
    async onRequest({ request, url, serverContext, endResponse }) {
      if (exempt.has(url.pathname)) return;
      const cls = classify(request, serverContext.bodyText, url.pathname, options.graphqlEndpoint);
      // Who calls was found by the authentication step before this one.
      const auth = serverContext.auth;
      serverContext.clientIp = clientIp(serverContext, request, options.trustProxy);
      const key = auth ? auth.key : `ip:${serverContext.clientIp}`;
      const limiter = options.limiters[cls];
      try {
        serverContext.rateLimit = { limit: limiter.points, result: await limiter.consume(key) };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) {
          options.logger.error({ err: rejection }, 'rate limiter unavailable; request allowed');
          return;
        }
        serverContext.rateLimit = { limit: limiter.points, result: rejection };
        options.onRejected?.(cls);
        const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        endResponse(
          errorResponse(
            'RATE_LIMITED',
            `Too many ${cls === 'read' ? 'reads' : 'writes'}: at most ${limiter.points} per minute; retry in ${retryAfter} s`,
            undefined,
            serverContext.requestId,
            { 'retry-after': String(retryAfter) },
          ),
        );
      }
    },
    onResponse({ response, serverContext }) {
      const state = serverContext.rateLimit;
      if (!state) return;
      response.headers.set('x-ratelimit-limit', String(state.limit));
      response.headers.set('x-ratelimit-remaining', String(Math.max(0, state.result.remainingPoints)));
      response.headers.set('x-ratelimit-reset', String(Math.ceil(state.result.msBeforeNext / 1000)));
    },
  };
}
