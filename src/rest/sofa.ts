import { getNamedType, GraphQLObjectType, Kind, parse, printType, type GraphQLSchema } from 'graphql';
import { filterSchema, mapSchema, MapperKind } from '@graphql-tools/utils';
import { useSofa as yogaSofa } from '@graphql-yoga/plugin-sofa';
import { useSofa as sofaRouter } from 'sofa-api';
import type { RestRoute } from '../routing/route-table';
import type { ServerContext } from '../graphql/context';

export const SCALAR_SCHEMAS = {
  Date: { type: 'string', format: 'date', example: '2026-11-22' },
  DateTime: { type: 'string', format: 'date-time', example: '2026-11-22T08:30:00.000Z' },
  JSON: { description: 'Any JSON value' },
  JSONObject: { type: 'object', additionalProperties: true },
} as const;

/**
 * SOFA writes an argument's description into the scalar schema object it was given, which then
 * shows on every other field of that scalar (a `since` description on every date-time): it gets
 * a fresh copy on each look-up.
 */
const freshScalarSchemas = new Proxy(SCALAR_SCHEMAS as Record<string, Record<string, unknown>>, {
  get: (schemas, name) => (typeof name === 'string' && Object.hasOwn(schemas, name) ? structuredClone(schemas[name]) : undefined),
});

/** The SOFA configuration derived from the route table; shared by the live routes and the document. */
export function sofaConfig(schema: GraphQLSchema, routes: readonly RestRoute[]) {
  return {
    schema,
    basePath: '/api',
    routes: Object.fromEntries(
      routes.map((r) => [
        r.field,
        { method: r.method, path: r.path, tags: [r.tag], description: r.description, responseStatus: r.responseStatus ?? 200 },
      ]),
    ),
    // A paged record type also reachable by id would otherwise be cut down to { id }.
    ignore: routes.filter((r) => r.paginated).map((r) => `${pageTypeOf(schema, r)}.payload`),
    customScalars: freshScalarSchemas,
    depthLimit: 4,
  };
}

function pageTypeOf(schema: GraphQLSchema, route: RestRoute): string {
  const [, fieldName] = route.field.split('.') as [string, string];
  const field = schema.getQueryType()?.getFields()[fieldName];
  if (!field) throw new Error(`Route ${route.path} names unknown field ${route.field}`);
  return getNamedType(field.type).name;
}

/**
 * The schema SOFA builds its operations from: without the fields marked `extensions.graphqlOnly`
 * (e.g. `history(limit)` on record types), which SOFA would otherwise select into every REST answer
 * holding their type, with their arguments as extra query parameters.
 */
export function restSchema(schema: GraphQLSchema): GraphQLSchema {
  const filtered = filterSchema({ schema, objectFieldFilter: (_type, _field, config) => config.extensions?.graphqlOnly !== true });
  // A code-first schema has no AST: for the description of every argument of every route SOFA
  // then prints and parses the whole Query (or Mutation) type again (`getOperationFieldNode`),
  // about 0.3 s of each start (issue 29's restart). The same AST, made once per root type.
  return mapSchema(filtered, {
    [MapperKind.ROOT_OBJECT]: (type) => {
      const astNode = parse(printType(type)).definitions[0];
      return astNode?.kind === Kind.OBJECT_TYPE_DEFINITION ? new GraphQLObjectType({ ...type.toConfig(), astNode }) : type;
    },
  });
}

/**
 * Yoga's SOFA plugin, building its routes from `restSchema` of the served schema. A push's list,
 * which the REST edge parsed and took out of the body SOFA reads (`restLists`), becomes the
 * variable of the same name, as SOFA names a body field's variable (ADR 0046).
 */
export function useRestSofa(config: Parameters<typeof yogaSofa>[0]): ReturnType<typeof yogaSofa> {
  const plugin = yogaSofa(config);
  return {
    ...plugin,
    onSchemaChange: (payload) => plugin.onSchemaChange?.({ ...payload, schema: restSchema(payload.schema) }),
    onExecute({ args }) {
      const lists = (args.contextValue as ServerContext | undefined)?.restLists;
      if (lists) args.variableValues = { ...args.variableValues, ...lists };
    },
  };
}

/** The OpenAPI document exactly as SOFA generates it (corrected in openapi.ts). */
export function sofaOpenApiDocument(schema: GraphQLSchema, routes: readonly RestRoute[]): Record<string, unknown> {
  const router = sofaRouter({
    ...sofaConfig(restSchema(schema), routes),
    openAPI: { endpoint: '/doc', info: { title: 'sync-gateway', version: '1' } },
  });
  return structuredClone(router.openAPIDocument) as unknown as Record<string, unknown>;
}
