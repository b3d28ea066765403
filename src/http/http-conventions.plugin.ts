import { STATUS_CODES } from 'node:http';
import { errorResponse, type ErrorBody } from '../errors/app-error';
import type { ServerContext } from '../graphql/context';
import { API_BASE, type RestRoute } from '../routing/route-table';
import type { StepPlugin } from './plugin-chain';
import type { RouteMatching } from './route-match.plugin';

type ConventionsContext = ServerContext & { headRequest?: boolean };

export type HttpConventionsOptions = {
  routes: readonly RestRoute[];
  routing: RouteMatching;
  graphqlEndpoint: string;
  /** Paths that only answer GET (and so HEAD and OPTIONS): public documents, /ready, /metrics… */
  getPaths: readonly string[];
  /** Trees of GET-only paths (the admin console, the API reference's files). */
  getPrefixes: readonly string[];
  /** The GraphiQL page as Yoga renders it for a GET; Yoga's GraphiQL plugin runs before ours and ignores HEAD. */
  graphiqlPage?: () => Promise<string>;
};

const JSON_WITHOUT_CHARSET = /^application\/([\w.+-]+\+)?json\s*$/i;

/**
 * The HTTP manners every route shares (docs/adr/0019-http-conventions.md): HEAD wherever GET is
 * served (the GET runs, its body is dropped), OPTIONS and 405 naming the allowed methods in
 * `Allow`, a reason phrase and `charset=utf-8` on JSON, `Location` on a 201 that created a
 * resource, and /graphql errors raised before GraphQL runs (401, 429, 503) in GraphQL's shape.
 * After the rate limit ('counted': these answers are counted) and before the bearer gate, which
 * needs 'conventions' (so OPTIONS and 405 need no token); its onResponse sees the answer every
 * earlier plugin produced.
 */
export function useHttpConventions(options: HttpConventionsOptions): StepPlugin<'route' | 'counted', 'conventions', ConventionsContext> {
  const getOnly = new Set(options.getPaths);
  const locations = new Map(options.routes.filter((r) => r.location).map((r) => [`${r.method} ${API_BASE}${r.path}`, r.location!]));

  let graphiqlLength: number | undefined;
  const answerGraphiqlHead = async (page: () => Promise<string>, endResponse: (response: Response) => void): Promise<void> => {
    graphiqlLength ??= Buffer.byteLength(await page());
    endResponse(
      new Response(null, {
        status: 200,
        statusText: 'OK',
        headers: { 'content-type': 'text/html', 'content-length': String(graphiqlLength) },
      }),
    );
  };
  const allowedMethods = (pathname: string): string[] | undefined => {
    if (pathname === options.graphqlEndpoint) return ['GET', 'HEAD', 'POST', 'OPTIONS'];
    if (getOnly.has(pathname) || options.getPrefixes.some((p) => pathname === p || pathname.startsWith(`${p}/`))) {
      return ['GET', 'HEAD', 'OPTIONS'];
    }
    const methods = options.routing.allowedMethods(pathname);
    if (methods.length === 0) return undefined;
    return [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'];
  };

  return {
    onRequest({ request, url, serverContext, setRequest, endResponse, fetchAPI }) {
      const allowed = allowedMethods(url.pathname);
      if (!allowed) return;
      const allow = allowed.join(', ');
      // A CORS preflight carries Access-Control-Request-Method; Yoga's CORS answers it when enabled.
      if (request.method === 'OPTIONS' && !request.headers.has('access-control-request-method')) {
        endResponse(new Response(null, { status: 204, statusText: STATUS_CODES[204] ?? '', headers: { allow } }));
        return;
      }
      if (!allowed.includes(request.method)) {
        endResponse(
          errorResponse(
            'METHOD_NOT_ALLOWED',
            `${request.method} is not allowed on ${url.pathname}; allowed: ${allow}`,
            undefined,
            serverContext.requestId,
            { allow },
          ),
        );
        return;
      }
      if (request.method !== 'HEAD') return; // every poll: on at once, without a promise
      if (url.pathname === options.graphqlEndpoint && options.graphiqlPage && request.headers.get('accept')?.includes('text/html')) {
        return answerGraphiqlHead(options.graphiqlPage, endResponse);
      }
      serverContext.headRequest = true;
      setRequest(new fetchAPI.Request(request.url, { method: 'GET', headers: request.headers }));
      return undefined;
    },

    onResponse({ request, response, serverContext, setResponse }) {
      const url = { pathname: serverContext.pathname ?? new URL(request.url).pathname };
      const headers = response.headers;
      // With CORS on, Yoga answers every OPTIONS itself; the answer still names the methods.
      if (request.method === 'OPTIONS' && response.status === 204 && !headers.has('allow')) {
        const allowed = allowedMethods(url.pathname);
        if (allowed) headers.set('allow', allowed.join(', '));
      }
      const contentType = headers.get('content-type');
      if (contentType && JSON_WITHOUT_CHARSET.test(contentType)) headers.set('content-type', `${contentType.trim()}; charset=utf-8`);
      const graphqlError =
        url.pathname === options.graphqlEndpoint && response.status >= 400 && contentType?.startsWith('application/json');
      // A plain answer (every poll) is done here, without a promise; the rest may read the body.
      if (!graphqlError && response.status !== 201 && serverContext.headRequest !== true && response.statusText !== '') return;
      return reshape(url.pathname, request, response, contentType, serverContext, setResponse);
    },
  };

  async function reshape(
    pathname: string,
    request: Request,
    response: Response,
    contentType: string | null,
    serverContext: ConventionsContext,
    setResponse: (response: Response) => void,
  ): Promise<void> {
    const url = { pathname };
    const headers = response.headers;

    let graphqlBody: string | undefined;
    if (url.pathname === options.graphqlEndpoint && response.status >= 400 && contentType?.startsWith('application/json')) {
      const rest = (await response
        .clone()
        .json()
        .catch(() => undefined)) as Partial<ErrorBody> | undefined;
      if (rest?.error) graphqlBody = JSON.stringify(graphqlShaped(rest as ErrorBody));
    }

    if (response.status === 201) {
      const location = locations.get(`${request.method} ${url.pathname.replace(/\/$/, '')}`);
      const created = location
        ? ((await response
            .clone()
            .json()
            .catch(() => undefined)) as Record<string, unknown> | undefined)
        : undefined;
      const target = location && created ? fillLocation(location, created) : undefined;
      if (target) headers.set('location', target);
    }

    const head = serverContext.headRequest === true;
    if (head && response.body !== null && !contentType?.startsWith('text/event-stream')) {
      headers.set('content-length', String((await response.clone().arrayBuffer()).byteLength));
    }
    // Read after the clones above: cloning replaces a response's body stream with one of two tees.
    const body = graphqlBody ?? response.body;
    if (graphqlBody !== undefined || head || response.statusText === '') {
      setResponse(
        new Response(head ? null : body, {
          status: response.status,
          statusText: response.statusText || STATUS_CODES[response.status] || '',
          headers,
        }),
      );
    }
  }
}

/** `{"error": {...}}` as GraphQL clients expect it: the same code and status, the fields in extensions. */
function graphqlShaped({ error }: ErrorBody) {
  const { code, message, details, requestId } = error;
  return { errors: [{ message, extensions: { code, ...(details ? { details } : {}), ...(requestId ? { requestId } : {}) } }] };
}

/** `/v1/failures/:id` with `:id` taken from the created record; undefined when a field is missing. */
function fillLocation(template: string, created: Record<string, unknown>): string | undefined {
  let missing = false;
  const path = template.replace(/:(\w+)/g, (_all, name: string) => {
    const value = created[name];
    if (typeof value !== 'string' && typeof value !== 'number') missing = true;
    return encodeURIComponent(String(value));
  });
  return missing ? undefined : `${API_BASE}${path}`;
}
