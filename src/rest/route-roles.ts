import type { GraphQLSchema } from 'graphql';
import { rolesOf, type Role } from '../auth/roles';
import { grantOf } from '../graphql/access';
import type { RestRoute } from '../routing/route-table';

/**
 * The roles that may call a route: its root field's grant (ADR 0044), admin's alone when the field
 * names none; undefined for a public route. The OpenAPI document lists them (x-roles) and the
 * route-roles plugin enforces them before anything else reads the request.
 */
export function routeRoles(schema: GraphQLSchema, route: RestRoute): readonly Role[] | undefined {
  const [type, name] = route.field.split('.') as [string, string];
  const field = (type === 'Query' ? schema.getQueryType() : schema.getMutationType())?.getFields()[name];
  if (!field) throw new Error(`The route ${route.method} ${route.path} names ${route.field}, which the schema does not have`);
  const grant = grantOf(field);
  if (grant === 'public') return undefined;
  return grant ? rolesOf(grant) : ['admin'];
}
