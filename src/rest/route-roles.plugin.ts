import type { GraphQLSchema } from 'graphql';
import { forbidden, type Role } from '../auth/roles';
import { errorResponse } from '../errors/app-error';
import type { StepPlugin } from '../http/plugin-chain';
import type { RouteMatching } from '../http/route-match.plugin';
import type { RestRoute } from '../routing/route-table';
import { routeRoles } from './route-roles';

export type RouteRolesOptions = { schema: GraphQLSchema; routes: readonly RestRoute[]; routing: RouteMatching };

/**
 * Refuses a REST call its token's role may not make (ADR 0044) as soon as the caller is known:
 * before its Idempotency-Key is claimed and before its body is parsed, so a webshop token's 10 MB
 * push costs a lookup, and a refusal is a 403 whatever else is wrong with the request. GraphQL
 * enforces the same grants field by field (scope auth); this is the REST edge's early answer.
 */
export function useRouteRoles(options: RouteRolesOptions): StepPlugin<'route' | 'caller', 'role'> {
  const allowed = new Map(options.routes.map((route) => [route, routeRoles(options.schema, route)]));
  return {
    onRequest({ serverContext, endResponse }) {
      const match = options.routing.routeOf(serverContext);
      if (match === undefined || match === 'method-not-allowed') return; // the REST edge answers 404 and 405
      const roles = allowed.get(match.route);
      const role: Role | undefined = serverContext.auth?.role;
      if (roles === undefined || role === undefined || roles.includes(role)) return;
      const refusal = forbidden(role, match.route.field.split('.')[1]!);
      endResponse(errorResponse(refusal.code, refusal.message, undefined, serverContext.requestId));
    },
  };
}
