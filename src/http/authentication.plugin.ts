import type { Logger } from 'pino';
import { requestErrorResponse } from '../errors/request-errors';
import { authenticate, type Authenticator } from './authenticate';
import type { StepPlugin } from './plugin-chain';

export type AuthenticationOptions = Authenticator & {
  logger: Logger;
  /** Probes (GET /health, /ready) must answer while the database is down: nobody is looked up. */
  exemptPaths?: readonly string[];
};

/**
 * The step that finds out who is calling, once per request, before the plugins that need to know:
 * the rate limit keys on the caller, the bearer gate (`useBearerAuth`) refuses a request without
 * one where a token is needed, the role check and Idempotency-Keys read it. It refuses nothing
 * itself; a lookup that fails for the database answers 503 like any request would.
 */
export function useAuthentication(options: AuthenticationOptions): StepPlugin<never, 'caller'> {
  const exempt = new Set(options.exemptPaths ?? []);
  return {
    onRequest({ request, url, serverContext, endResponse }) {
      if (exempt.has(url.pathname)) return;
      // No header, no lookup: on at once, without a promise.
      if (!request.headers.has('authorization')) return;
      return authenticate(options, serverContext, request).then(
        () => undefined,
        (error: unknown) => endResponse(requestErrorResponse(error, serverContext.requestId, options.logger, 'authentication')),
      );
    },
  };
}
