import type { ServerContext } from '../graphql/context';
import { API_BASE, createRouteMatcher, type HttpMethod, type RestRoute, type RouteMatch } from '../routing/route-table';
import type { StepPlugin } from './plugin-chain';

export type RouteMatchOptions = { routes: readonly RestRoute[] };

/** A request's route under /api/: its match, `'method-not-allowed'`, or undefined (no such path, or not under /api/). */
export type RouteLookup = RouteMatch | 'method-not-allowed' | undefined;

/**
 * The step that matches a request against the route table, once, for every plugin after it: the
 * HTTP conventions (405, Allow), the metrics' route label, the role check, Idempotency-Keys and
 * the REST edge read its answer instead of matching again.
 */
export type RouteMatching = {
  /** Gives the 'route' stage, which every plugin that reads the route needs (plugin-chain.ts). */
  plugin: StepPlugin<never, 'route'>;
  /**
   * This request's route. Throws when the step has not run for the request: a plugin that reads
   * the route was placed before `plugin` where the types did not see it (a plain array, or
   * JavaScript), which every test of a route then shows.
   */
  routeOf(context: ServerContext): RouteLookup;
  /**
   * For onResponse hooks, which also see answers given before the step ran (Yoga's CORS answers a
   * preflight before any plugin): the route when the step matched one, else undefined.
   */
  matchedRoute(context: ServerContext): RouteLookup;
  /** The methods the table serves on a path (for Allow); empty for a path it does not know. */
  allowedMethods(pathname: string): HttpMethod[];
};

export function useRouteMatch({ routes }: RouteMatchOptions): RouteMatching {
  const matcher = createRouteMatcher(routes);
  const matched = new WeakMap<object, RouteLookup>();
  return {
    plugin: {
      onRequest({ request, url, serverContext }) {
        if (!url.pathname.startsWith(`${API_BASE}/`)) return void matched.set(serverContext, undefined);
        // HEAD is answered as GET (the HTTP conventions rewrite it): it has GET's route.
        matched.set(serverContext, matcher.match(request.method === 'HEAD' ? 'GET' : request.method, url.pathname));
      },
    },
    routeOf(context) {
      if (!matched.has(context)) throw new Error('the route-match step has not run for this request: its plugin must come first');
      return matched.get(context);
    },
    matchedRoute: (context) => matched.get(context),
    allowedMethods: (pathname) => matcher.allowedMethods(pathname),
  };
}
