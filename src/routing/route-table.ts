import type { ErrorCode } from '../errors/app-error';

/**
 * Every REST route of the contract, mapped onto a root field of the one GraphQL schema.
 * SOFA builds the handlers from it, the OpenAPI document is corrected with it and the
 * ai-context document is written from it, so the three cannot drift apart.
 */
export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export type RestRoute = {
  /** Root field, e.g. `Query.updatedProducts`. */
  field: `Query.${string}` | `Mutation.${string}`;
  method: HttpMethod;
  /** Path under /api, with `:param` segments (SOFA's syntax), e.g. `/v1/updated-products/:id`. */
  path: string;
  tag: string;
  summary: string;
  description: string;
  /** A bare JSON object body is taken as the single item of this list argument. */
  singleItemArg?: string;
  /** What the OpenAPI document says of list arguments in the body (SOFA only knows GraphQL types). */
  bodyLists?: Record<string, { maxItems: number; items?: { name: string; schema: Record<string, unknown> } }>;
  /** Arguments documented as query parameters even on a POST (the rest go in the JSON body). */
  queryArgs?: string[];
  /** Arguments accepted, and documented, both as query parameter and as body field. */
  queryOrBodyArgs?: string[];
  /** Body fields that are not arguments of the field are a 400 naming them. */
  strictBody?: boolean;
  /** Its path parameters filter a list: a value that matches nothing gives an empty page, not a 404. */
  pathFilters?: boolean;
  /** Error codes this route can answer besides the usual ones (documented in OpenAPI). */
  extraErrors?: ErrorCode[];
  /** Needs no bearer token (signing in). */
  public?: boolean;
  /** Status of a successful answer; 200 unless given. */
  responseStatus?: number;
  /** Where a 201's new resource lives, under /api, `:name` taken from the answer's fields (the Location header). */
  location?: string;
  /** Replaces SOFA's response schema where the GraphQL type cannot say it (e.g. a tree as JSON). */
  responseSchema?: { components: Record<string, Record<string, unknown>>; schema: Record<string, unknown> };
  /** Uses the change-list pagination (since, limit, offset) and the {payload, meta} envelope. */
  paginated?: boolean;
  example: { request?: unknown; query?: string; response: unknown };
};

export const API_BASE = '/api';

export const fullPath = (route: Pick<RestRoute, 'path'>): string => `${API_BASE}${route.path}`;

/** `/v1/x/:id` → `/v1/x/{id}` as OpenAPI writes it. */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

export type RouteMatch = {
  route: RestRoute;
  params: Record<string, string>;
  /** Path parameters whose percent-encoding is not UTF-8 (`%FF`): a 400, not a URIError. */
  undecodable: string[];
};

export type RouteMatcher = {
  match(method: string, pathname: string): RouteMatch | 'method-not-allowed' | undefined;
  /** The methods the table serves on this path; empty for a path it does not know. */
  allowedMethods(pathname: string): HttpMethod[];
};

export function createRouteMatcher(routes: readonly RestRoute[]): RouteMatcher {
  const compiled = routes.map((route) => {
    const names: string[] = [];
    const source = fullPath(route)
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(segment.slice(1));
        return '([^/]+)';
      })
      .join('/');
    return { route, names, regex: new RegExp(`^${source}/?$`) };
  });
  // A path is asked about by the route-match step and for its Allow header by the conventions:
  // each distinct path is matched against the table once.
  const byPath = new Map<string, Array<{ route: RestRoute; names: string[]; values: string[] }>>();
  const candidates = (pathname: string) => {
    let found = byPath.get(pathname);
    if (found === undefined) {
      found = [];
      for (const { route, names, regex } of compiled) {
        const m = regex.exec(pathname);
        if (m) found.push({ route, names, values: m.slice(1) });
      }
      if (pathname.length <= MAX_CACHED_PATH) {
        if (byPath.size >= MATCH_CACHE_SIZE) byPath.clear();
        byPath.set(pathname, found);
      }
    }
    return found;
  };
  return {
    match(method, pathname) {
      const found = candidates(pathname);
      if (found.length === 0) return undefined;
      const hit = found.find(({ route }) => route.method === method);
      if (!hit) return 'method-not-allowed';
      const params: Record<string, string> = {};
      const undecodable: string[] = [];
      hit.names.forEach((name, i) => {
        try {
          params[name] = decodeURIComponent(hit.values[i]!);
        } catch {
          undecodable.push(name);
        }
      });
      return { route: hit.route, params, undecodable };
    },
    allowedMethods(pathname) {
      return [...new Set(candidates(pathname).map(({ route }) => route.method))];
    },
  };
}

/** Distinct paths remembered per matcher (ids make paths many; the cache starts over when full). */
const MATCH_CACHE_SIZE = 1_000;
const MAX_CACHED_PATH = 256;
