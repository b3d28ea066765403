import type { GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError, errorResponse } from '../errors/app-error';
import { parseJsonObject } from './body';
import { undecodableQueryParams, unknownBodyFields, validateRestArguments } from './arguments';
import type { ServerContext } from '../graphql/context';
import { buildOpenApiDocument, documentedQueryParameters } from './openapi';
import { API_BASE, createRouteMatcher, type RestRoute } from './route-table';

/**
 * The thin HTTP edge in front of SOFA: only routes of the table exist, bodies (already size- and
 * depth-checked by the body-limits plugin) are parsed and normalised (a bare product object
 * becomes {products: [it]}), and arguments are validated with field names. SOFA sees only requests it can execute.
 */
export function useRestEdge(options: { schema: GraphQLSchema; routes: readonly RestRoute[] }): Plugin<object, ServerContext> {
  const matcher = createRouteMatcher(options.routes);
  // The document is the contract: a parameter it does not list is refused, one it lists never is.
  const document = buildOpenApiDocument(options.schema, options.routes);
  const queryParameters = new Map(options.routes.map((r) => [r, documentedQueryParameters(document, r)]));
  return {
    onRequest({ request, url, setRequest, endResponse, fetchAPI, serverContext }) {
      if (!url.pathname.startsWith(`${API_BASE}/`)) return;
      const match = matcher.match(request.method, url.pathname);
      if (match === undefined) {
        endResponse(errorResponse('NOT_FOUND', `No route ${request.method} ${url.pathname}`));
        return;
      }
      if (match === 'method-not-allowed') {
        endResponse(errorResponse('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}`));
        return;
      }
      try {
        let body: Record<string, unknown> = {};
        const text = request.method === 'GET' ? '' : (serverContext.bodyText ?? '');
        if (text.trim() !== '') assertJsonContentType(request);
        if (request.method !== 'GET') body = parseJsonObject(text);
        const { route, params } = match;
        let normalised = false;
        if (route.singleItemArg && !Object.hasOwn(body, route.singleItemArg) && Object.keys(body).length > 0) {
          body = { [route.singleItemArg]: [body] };
          normalised = true;
        }
        const encoding = [
          ...match.undecodable.map((name) => ({ field: name, message: 'Must be percent-encoded UTF-8' })),
          ...undecodableQueryParams(url.search),
        ];
        if (encoding.length > 0) throw new AppError('VALIDATION_FAILED', 'Invalid request', encoding);
        const documented = queryParameters.get(route);
        const details = [
          ...[...new Set(url.searchParams.keys())]
            .filter((name) => !documented?.has(name))
            .map((name) => ({
              field: name,
              message: documented?.size
                ? `Unknown query parameter; this route takes ${[...documented].join(', ')}`
                : 'Unknown query parameter; this route takes none',
            })),
          ...(route.strictBody ? unknownBodyFields(options.schema, route, body) : []),
          ...validateRestArguments(options.schema, route, {
            params,
            query: url.searchParams,
            body,
          }),
        ];
        if (details.length > 0) {
          endResponse(errorResponse('VALIDATION_FAILED', 'Invalid request', details));
          return;
        }
        serverContext.restEdge = true;
        if (request.method !== 'GET') {
          const headers = new fetchAPI.Headers(request.headers);
          headers.delete('content-length');
          headers.set('content-type', 'application/json');
          // A bulk body (megabytes) is passed on as it came unless it had to be reshaped.
          setRequest(
            new fetchAPI.Request(request.url, {
              method: request.method,
              headers,
              body: normalised || text.trim() === '' ? JSON.stringify(body) : text,
            }),
          );
        }
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        endResponse(errorResponse(error.code, error.message, error.details));
      }
    },
  };
}

function assertJsonContentType(request: Request): void {
  const type = request.headers.get('content-type');
  if (type && !/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Expected Content-Type application/json, got ${type}`, [
      { field: 'Content-Type', message: 'Must be application/json' },
    ]);
  }
}
