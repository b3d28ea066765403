import { getOperationAST, Kind, parse } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { errorResponse } from '../errors/app-error';
import { requestErrorResponse } from '../errors/request-errors';
import type { ServerContext } from '../graphql/context';
import type { AuthInfo } from '../auth/token.service';
import { authenticate, type Authenticator } from './authenticate';
import type { StepPlugin } from './plugin-chain';

export type PublicRoute = { method: string; path: string };

export type BearerAuthOptions = Authenticator & {
  publicRoutes: readonly PublicRoute[];
  publicGraphqlFields: ReadonlySet<string>;
  graphqlEndpoint: string;
  logger: Logger;
};

/**
 * Every route needs `Authorization: Bearer <token>` except the public ones. (Yoga renders the
 * GraphiQL page before any plugin runs and never executes a query there.)
 */
export function useBearerAuth(options: BearerAuthOptions): StepPlugin<'body' | 'counted' | 'conventions', 'token'> {
  const isPublic = (method: string, path: string) =>
    options.publicRoutes.some((r) => r.path === path && (r.method === method || (r.method === 'GET' && method === 'HEAD')));
  return {
    onRequest(payload) {
      // The authentication step found the caller already (every poll): on without a promise.
      if (payload.serverContext.auth) return;
      if (isPublic(payload.request.method, payload.url.pathname)) return;
      return gate(payload);
    },
  };

  async function gate({ request, url, serverContext, endResponse }: OnRequestPayload): Promise<void> {
    let auth: AuthInfo | null;
    try {
      auth = await authenticate(options, serverContext, request);
    } catch (error) {
      // A token lookup during a database outage answers like any request would: 503 JSON.
      return endResponse(requestErrorResponse(error, serverContext.requestId, options.logger, 'authentication'));
    }
    if (auth) return;
    if (url.pathname === options.graphqlEndpoint && onlyPublicFields(serverContext.bodyText, options.publicGraphqlFields)) return;
    const presented = /^Bearer\s+\S+/i.test(request.headers.get('authorization') ?? '');
    endResponse(
      errorResponse(
        'UNAUTHENTICATED',
        presented ? 'The bearer token is not valid' : 'Missing Authorization: Bearer <token> header',
        undefined,
        serverContext.requestId,
        { 'www-authenticate': 'Bearer' },
      ),
    );
  }
}

type OnRequestPayload = Parameters<NonNullable<Plugin<object, ServerContext>['onRequest']>>[0];

/** Signing in cannot need a token: a GraphQL mutation that only calls these fields is allowed without one. */
function onlyPublicFields(bodyText: string | undefined, fields: ReadonlySet<string>): boolean {
  try {
    const { query, operationName } = JSON.parse(bodyText ?? '') as { query?: string; operationName?: string };
    const operation = query ? getOperationAST(parse(query), operationName) : null;
    if (operation?.operation !== 'mutation') return false;
    return operation.selectionSet.selections.every((s) => s.kind === Kind.FIELD && fields.has(s.name.value));
  } catch {
    return false;
  }
}
