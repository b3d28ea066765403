import type { ServerContext } from '../../src/graphql/context';
import { useRouteMatch } from '../../src/http/route-match.plugin';
import { restRoutes } from '../../src/modules';

/** The one step that matches a request's route for every plugin after it. */
describe('useRouteMatch', () => {
  const routing = useRouteMatch({ routes: restRoutes });
  const matched = (method: string, path: string) => {
    const serverContext: ServerContext = {};
    const onRequest = routing.plugin.onRequest as (payload: unknown) => void;
    onRequest({ request: new Request(`http://localhost${path}`, { method }), url: new URL(`http://localhost${path}`), serverContext });
    return { serverContext, route: routing.routeOf(serverContext) };
  };

  it('matches a route with its parameters, HEAD as GET', () => {
    const { route } = matched('DELETE', '/api/v1/updated-products/42');
    expect(route).toMatchObject({ route: { field: 'Mutation.acknowledgeProduct' }, params: { id: '42' } });
    expect(matched('HEAD', '/api/v1/updated-products')).toMatchObject({ route: { route: { field: 'Query.updatedProducts' } } });
  });

  it("says 'method-not-allowed' for a known path and undefined for an unknown one or one outside /api/", () => {
    expect(matched('PUT', '/api/v1/updated-products').route).toBe('method-not-allowed');
    expect(matched('GET', '/api/v1/no-such-thing').route).toBeUndefined();
    expect(matched('GET', '/graphql').route).toBeUndefined();
  });

  it('refuses to answer for a request the step has not seen (a reader placed before it)', () => {
    expect(() => routing.routeOf({})).toThrow(/route-match step has not run/);
    expect(routing.matchedRoute({})).toBeUndefined();
  });
});
