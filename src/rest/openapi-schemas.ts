import { isInputObjectType, type GraphQLSchema } from 'graphql';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../changes/page';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI is loose JSON

/**
 * SOFA leaves nullable GraphQL fields out of `required` and does not say they may be null, but a
 * REST answer always carries every field of an output type, as null when absent: each is
 * required, and nullable where GraphQL allows null (OpenAPI 3.0.3: null is then allowed only with
 * a `type`, and only when an `enum` lists it). Input types keep their optional fields.
 */
export function completeOutputSchemas(graphqlSchema: GraphQLSchema, schemas: Json): Json {
  const out: Json = {};
  for (const [name, schema] of Object.entries(schemas as Json)) {
    if (schema?.type !== 'object' || !schema.properties || isInputObjectType(graphqlSchema.getType(name))) {
      out[name] = schema;
      continue;
    }
    const required = new Set<string>(schema.required ?? []);
    const properties: Json = {};
    for (const [prop, propSchema] of Object.entries(schema.properties as Json)) {
      properties[prop] = required.has(prop) ? propSchema : nullable(propSchema);
    }
    out[name] = { ...schema, required: Object.keys(properties), properties };
  }
  return out;
}

function nullable(schema: Json): Json {
  // A schema without a type (the JSON scalar) admits null already; OpenAPI 3.0 forbids nullable there.
  if (schema.type === undefined && !schema.$ref && !schema.anyOf && !schema.allOf) return schema;
  // A reference cannot be made nullable in place (siblings of $ref are ignored): null is the other choice.
  if (schema.$ref) return { anyOf: [{ $ref: schema.$ref }, { type: 'object', nullable: true, enum: [null] }] };
  return { ...schema, nullable: true, ...(schema.enum ? { enum: [...schema.enum, null] } : {}) };
}

/** The paging parameters of every list (src/changes/page.ts): defaults, and the clamp at MAX_LIMIT (a larger limit is answered with MAX_LIMIT rows). */
export function describePaging(parameter: Json): void {
  if (parameter.in !== 'query' || !parameter.schema) return;
  if (parameter.name === 'limit') Object.assign(parameter.schema, { minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT });
  if (parameter.name === 'offset') Object.assign(parameter.schema, { minimum: 0, default: 0 });
}
