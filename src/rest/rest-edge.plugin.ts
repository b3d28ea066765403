import type { GraphQLSchema } from 'graphql';
import { AppError, errorResponse } from '../errors/app-error';
import { parseJsonObject, parseJsonObjectPaced } from '../http/request-body';
import { PIECEWISE_MIN_CHARS } from '../pacing/json-body';
import { perRecordBatchArgs, undecodableQueryParams, unknownBodyFields, validateRestArguments } from './arguments';
import { buildOpenApiDocument, documentedQueryParameters } from './openapi';
import type { StepPlugin } from '../http/plugin-chain';
import type { RouteMatching } from '../http/route-match.plugin';
import { API_BASE, type RestRoute } from '../routing/route-table';

export type RestEdgeOptions = { schema: GraphQLSchema; routes: readonly RestRoute[]; routing: RouteMatching };

/**
 * The thin HTTP edge in front of SOFA: only routes of the table exist, bodies (already size- and
 * depth-checked by the body-limits plugin) are parsed and normalised (a bare product object
 * becomes {products: [it]}), and arguments are validated with field names. SOFA sees only requests it can execute.
 */
export function useRestEdge(options: RestEdgeOptions): StepPlugin<'route' | 'body' | 'idempotency'> {
  // The document is the contract: a parameter it does not list is refused, one it lists never is.
  const document = buildOpenApiDocument(options.schema, options.routes);
  const queryParameters = new Map(options.routes.map((r) => [r, documentedQueryParameters(document, r)]));
  const batchArgs = new Map(options.routes.map((r) => [r, perRecordBatchArgs(options.schema, r)]));
  return {
    onRequest({ request, url, setRequest, endResponse, fetchAPI, serverContext }) {
      if (!url.pathname.startsWith(`${API_BASE}/`)) return;
      const match = options.routing.routeOf(serverContext);
      if (match === undefined) {
        endResponse(errorResponse('NOT_FOUND', `No route ${request.method} ${url.pathname}`));
        return;
      }
      if (match === 'method-not-allowed') {
        endResponse(errorResponse('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}`));
        return;
      }
      const text = request.method === 'GET' ? '' : (serverContext.bodyText ?? '');
      const fail = (error: unknown) => {
        if (!(error instanceof AppError)) throw error;
        endResponse(errorResponse(error.code, error.message, error.details));
      };
      // The rest of the edge, once the body is parsed.
      const go = (parsed: Record<string, unknown>) => {
        try {
          const handOn = edge(match.route, match.params, match.undecodable, parsed, text.trim() === '');
          if (handOn === undefined) return;
          serverContext.restEdge = true;
          if (request.method === 'GET') return;
          if (handOn.lists) serverContext.restLists = handOn.lists;
          const headers = new fetchAPI.Headers(request.headers);
          headers.delete('content-length');
          headers.set('content-type', 'application/json');
          setRequest(new fetchAPI.Request(request.url, { method: request.method, headers, body: handOn.body ?? text }));
        } catch (error) {
          fail(error);
        }
      };
      try {
        if (text.trim() !== '') assertJsonContentType(request);
        const shape = serverContext.bodyShape;
        // A long list (a push of thousands) is parsed piece by piece, the event loop turning between pieces.
        if (shape?.list && text.length >= PIECEWISE_MIN_CHARS) return parseJsonObjectPaced(text, shape).then(go, fail);
        go(request.method === 'GET' ? {} : parseJsonObject(text));
      } catch (error) {
        fail(error);
      }
      return undefined;

      /**
       * Validates the request; undefined when answered here (endResponse). Otherwise what SOFA gets:
       * the body text (undefined: the one received) and the push lists taken out of it.
       */
      function edge(
        route: RestRoute,
        params: Record<string, string>,
        undecodable: readonly string[],
        parsed: Record<string, unknown>,
        emptyBody: boolean,
      ): { body?: string; lists?: Record<string, unknown[]> } | undefined {
        let body = parsed;
        let normalised = false;
        if (route.singleItemArg && !Object.hasOwn(body, route.singleItemArg) && Object.keys(body).length > 0) {
          body = { [route.singleItemArg]: [body] };
          normalised = true;
        }
        const encoding = [
          ...undecodable.map((name) => ({ field: name, message: 'Must be percent-encoded UTF-8' })),
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
          ...validateRestArguments(options.schema, route, { params, query: url.searchParams, body }),
        ];
        if (details.length > 0) {
          endResponse(errorResponse('VALIDATION_FAILED', 'Invalid request', details));
          return undefined;
        }
        // A push's list (validated above: an array) goes to the execution as parsed; SOFA would
        // parse the megabytes again in one stretch and pass the same items on (ADR 0046).
        const listNames = (batchArgs.get(route) ?? []).filter((name) => Array.isArray(body[name]));
        if (listNames.length > 0) {
          const rest = { ...body };
          const lists: Record<string, unknown[]> = {};
          for (const name of listNames) {
            lists[name] = body[name] as unknown[];
            delete rest[name];
          }
          return { body: JSON.stringify(rest), lists };
        }
        return { ...(normalised || emptyBody ? { body: JSON.stringify(body) } : {}) };
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
