import {
  coerceInputValue,
  getNamedType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import type { ErrorDetail } from '../errors/app-error';
import { isPerRecordBatch, unstorableArguments } from '../validation/graphql-arguments';
import type { RestRoute } from '../routing/route-table';

/**
 * Checks a REST request's arguments against the GraphQL field before SOFA runs it, so that a bad
 * `limit=abc` or `ids: ["x"]` is a 400 naming the field instead of SOFA's anonymous error or 500.
 * SOFA then does its own mapping of the same values, which is known to succeed.
 */
/** Body fields that name no argument of the route's field (for routes with strictBody). */
export function unknownBodyFields(schema: GraphQLSchema, route: RestRoute, body: Record<string, unknown>): ErrorDetail[] {
  const known = new Set(fieldOf(schema, route).args.map((a) => a.name));
  return Object.keys(body)
    .filter((key) => !known.has(key))
    .map((key) => ({ field: key, message: 'Unknown field' }));
}

/** The route's arguments that are per-record batches (a push's `[JSON]` list). */
export function perRecordBatchArgs(schema: GraphQLSchema, route: RestRoute): string[] {
  return fieldOf(schema, route)
    .args.filter(isPerRecordBatch)
    .map((a) => a.name);
}

function fieldOf(schema: GraphQLSchema, route: RestRoute) {
  const [rootName, fieldName] = route.field.split('.') as ['Query' | 'Mutation', string];
  const rootType = rootName === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const field = rootType?.getFields()[fieldName];
  if (!field) throw new Error(`Route ${route.method} ${route.path} names unknown field ${route.field}`);
  return field;
}

export function validateRestArguments(
  schema: GraphQLSchema,
  route: RestRoute,
  input: { params: Record<string, string>; query: URLSearchParams; body: Record<string, unknown> },
): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const arg of fieldOf(schema, route).args) {
    const fromText = input.params[arg.name] ?? input.query.get(arg.name) ?? undefined;
    if (fromText !== undefined) {
      details.push(...checkValue(arg, textToValue(fromText, arg.type)));
    } else if (Object.hasOwn(input.body, arg.name)) {
      details.push(...checkValue(arg, input.body[arg.name]));
    } else if (isNonNullType(arg.type) && arg.defaultValue === undefined) {
      details.push({ field: arg.name, message: 'Required' });
    }
  }
  return details;
}

function checkValue(arg: GraphQLArgument, value: unknown): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const listType = isNonNullType(arg.type) ? arg.type.ofType : arg.type;
  // GraphQL would wrap a lone value into a list; a REST client sending an object where an array belongs is wrong.
  if (isListType(listType) && value != null && !Array.isArray(value)) {
    return [{ field: arg.name, message: 'Expected an array' }];
  }
  // A push's `[JSON]` list coerces every array (JSON's parseValue is the identity, its items are
  // nullable): its records are checked one by one by validateBatch. Coercing 10,000 of them here
  // was a stretch of the event loop and a copy of the list for nothing (ADR 0046).
  if (isPerRecordBatch(arg) && isListType(listType) && !isNonNullType(listType.ofType) && Array.isArray(value)) return [];
  const coerced: unknown = coerceInputValue(value, arg.type, (path, _invalid, error) => {
    // A missing or unknown input-object field is reported at the object; its name is in the message.
    const named = /^Field "(\w+)" (of required type|is not defined)/.exec(error.message)?.[1];
    const suffix = [...path, ...(named ? [named] : [])].map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
    details.push({ field: `${arg.name}${suffix}`, message: plainMessage(error.message) });
  });
  if (details.length === 0) details.push(...unstorableArguments([arg], { [arg.name]: coerced }));
  return details;
}

/** Query and path values are text; turn them into what the argument's type expects. */
function textToValue(text: string, type: GraphQLInputType): unknown {
  const named = getNamedType(type);
  if (named === GraphQLInt || named === GraphQLFloat) {
    return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text.trim()) ? Number(text) : text;
  }
  if (named === GraphQLBoolean) return text === 'true' ? true : text === 'false' ? false : text;
  return text; // strings, IDs, enums and custom scalars parse text themselves
}

function plainMessage(message: string): string {
  return message.replace(/^Expected value of type "[^"]+", found [^;]+; /, '').replace(/\s+$/, '');
}

/**
 * Query parameters whose percent-encoding is not UTF-8 (`%FF`, an encoded lone surrogate):
 * URLSearchParams would quietly turn them into U+FFFD, so a lookup would search for other text.
 */
export function undecodableQueryParams(search: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const pair of search.replace(/^\?/, '').split('&')) {
    const [name = '', value = ''] = pair.replace(/\+/g, ' ').split(/=(.*)/s);
    const field = lenientDecode(name);
    if (lenientDecode(value) === undefined) details.push({ field: field ?? '(query)', message: 'Must be percent-encoded UTF-8' });
    else if (field === undefined) details.push({ field: '(query)', message: 'A parameter name is not percent-encoded UTF-8' });
  }
  return details;
}

function lenientDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
