import { buildOperationNodeForField } from '@graphql-tools/utils';
import {
  buildSchema,
  getIntrospectionQuery,
  isEnumType,
  Kind,
  OperationTypeNode,
  parse,
  type DocumentNode,
  type OperationDefinitionNode,
  type TypeNode,
} from 'graphql';
import { loadConfig } from '../../src/config';
import { listSizes } from '../../src/request-bounds/list-sizes';
import { createNodeCounter, UncountableOperationError } from '../../src/request-bounds/query-nodes';
import { restRoutes, schema } from '../../src/modules';
import { restSchema, sofaConfig } from '../../src/rest/sofa';

/** The node count of ADR 0043, without a server. */
const count = createNodeCounter(schema);
const nodes = (query: string, variables: Record<string, unknown> = {}, operationName?: string) =>
  count(parse(query), operationName, variables)?.nodes;

describe('the node count', () => {
  it('multiplies a page by its limit, nested lists by their sizes, and counts only list items', () => {
    expect(nodes('{ updatedProducts { payload { id } meta { total } } }')).toBe(50); // the default page
    expect(nodes('{ updatedProducts(limit: 500) { payload { id } } }')).toBe(500);
    expect(nodes('{ updatedProducts(limit: 100000) { payload { id } } }')).toBe(500); // clamped, as the service does
    expect(nodes('{ products(limit: 10) { payload { priceItems { id } stock { id } } } }')).toBe(10 * (1 + 20 + 20));
    expect(nodes('{ products(limit: 2) { payload { history(limit: 3) { changes { field } } } } }')).toBe(2 * (1 + 3 * (1 + 20)));
    expect(nodes('{ history(entityType: "product", externalId: "X", limit: 100) { entries { revision } } }')).toBe(100);
    expect(nodes('{ product(id: 1) { id data } pendingChanges { products } }')).toBe(0);
    expect(nodes('{ deliveriesPerMinute(minutes: 1440) { minute } }')).toBe(1440);
  });

  it('follows variables, fragments, inline fragments, @skip and @include, and sums aliases per root field', () => {
    const query = `query Q($n: Int, $deep: Boolean!) {
      a: products(limit: $n) { ...Item }
      b: products(limit: 1) { payload { ... on Product { stock { id } } } }
    }
    fragment Item on ProductPage { payload { id history @include(if: $deep) { revision } } }`;
    expect(count(parse(query), 'Q', { n: 10, deep: true })).toEqual({
      nodes: 10 * (1 + 20) + 1 * (1 + 20),
      byRootField: [
        { field: 'a', nodes: 210 },
        { field: 'b', nodes: 21 },
      ],
    });
    expect(nodes(query, { n: 10, deep: false }, 'Q')).toBe(10 + 21);
  });

  it('keeps a count per document and the variables that size it, not those that page or filter', () => {
    const document = parse(
      'query Q($n: Int, $deep: Boolean!, $since: DateTime, $offset: Int) { updatedProducts(limit: $n, since: $since, offset: $offset) { payload { id } } products(limit: 1) { payload { stock @include(if: $deep) { id } } } }',
    );
    expect(count(document, 'Q', { n: 10, deep: false, since: '2026-01-01T00:00:00Z', offset: 0 })?.nodes).toBe(10 + 1);
    expect(count(document, 'Q', { n: 10, deep: false, since: '2026-02-01T00:00:00Z', offset: 500 })?.nodes).toBe(10 + 1);
    expect(count(document, 'Q', { n: 300, deep: false })?.nodes).toBe(300 + 1);
    expect(count(document, 'Q', { n: 300, deep: true })?.nodes).toBe(300 + 1 + 20);
  });

  it('leaves requests the executor refuses anyway to the executor, and counts introspection as 0', () => {
    expect(count(parse('query A { pendingChanges { products } }'), 'B', {})).toBeUndefined();
    expect(nodes('query Q($n: Int!) { products(limit: $n) { payload { id } } }', {}, 'Q')).toBe(0); // a variable missing
    expect(nodes(getIntrospectionQuery())).toBe(0);
  });

  it('refuses to spend more than 10,000 steps counting one document', () => {
    const fragments = Array.from(
      { length: 12 },
      (_, i) => `fragment F${i} on Product { a: priceItems { ...F${i + 1}x } b: priceItems { ...F${i + 1}x } }`,
    );
    const chain = Array.from({ length: 12 }, (_, i) => `fragment F${i + 1}x on PriceItem { id }`).join(' ');
    const exploding = Array.from(
      { length: 14 },
      (_, i) => `fragment G${i} on Partner { a: children { ...G${i + 1} } b: children { ...G${i + 1} } }`,
    );
    const document = parse(
      `{ partner(id: 1) { ...G0 } } ${exploding.join(' ')} fragment G14 on Partner { id } ${fragments.join(' ')} ${chain}`,
    );
    expect(() => count(document, undefined, {})).toThrow(UncountableOperationError);
  });
});

describe('list sizes', () => {
  it('cover every list of the schema', () => {
    expect(() => listSizes(schema)).not.toThrow();
  });

  it('refuse to start with a list nothing sizes, or a page without a limit', () => {
    const unsized = buildSchema('type Query { tags: [Tag!]! } type Tag { name: String }');
    expect(() => listSizes(unsized)).toThrow(/Query\.tags \(a list without a size/);
    const page = buildSchema('type Query { things: ThingPage! } type ThingPage { payload: [Thing!]! } type Thing { id: Int }');
    expect(() => listSizes(page)).toThrow(/Query\.things \(returns the page ThingPage without a limit argument\)/);
  });
});

describe('every REST route at its largest page', () => {
  const rest = restSchema(schema);
  const restCount = createNodeCounter(rest);
  const config = sofaConfig(rest, restRoutes);
  const max = loadConfig({}).requestBounds.maxQueryNodes;

  const routeCounts = restRoutes.map((route) => {
    const [kind, field] = route.field.split('.') as ['Query' | 'Mutation', string];
    const operation = buildOperationNodeForField({
      kind: kind === 'Query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION,
      schema: rest,
      field,
      models: [],
      ignore: config.ignore,
      circularReferenceDepth: config.depthLimit,
    }) as OperationDefinitionNode;
    const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation] };
    // Every variable at its largest: limit 500 (SPEC 4.1), the others any value of their type.
    const variables = Object.fromEntries(
      (operation.variableDefinitions ?? []).map((v) => [v.variable.name.value, v.variable.name.value === 'limit' ? 500 : sample(v.type)]),
    );
    return { route: `${route.method} ${route.path}`, nodes: restCount(document, undefined, variables)?.nodes };
  });

  it('fits under the default MAX_QUERY_NODES, so that no REST client is ever refused for its page size', () => {
    for (const { route, nodes: n } of routeCounts) expect({ route, fits: n !== undefined && n <= max }).toEqual({ route, fits: true });
  });

  it('is counted, not skipped: the lists and the batch answers have their sizes', () => {
    const of = (route: string) => routeCounts.find((r) => r.route === route)?.nodes;
    expect(of('GET /v1/updated-products')).toBe(500);
    expect(of('GET /v1/failures')).toBe(500 * (1 + 10));
    expect(of('GET /v1/outbound-queue')).toBe(500 * (1 + 10));
    expect(of('GET /v1/history/:entityType/:externalId')).toBe(100 * (1 + 20)); // limit=500 is history's maximum, 100
    expect(of('POST /v1/stocks')).toBe(10_000 + 1_000);
  });
});

/** A value of a variable's type that coerces (the count needs every required variable). */
function sample(type: TypeNode): unknown {
  if (type.kind === Kind.NON_NULL_TYPE) return sample(type.type);
  if (type.kind === Kind.LIST_TYPE) return [];
  const named = schema.getType(type.name.value);
  if (isEnumType(named)) return named.getValues()[0]!.value;
  const scalars: Record<string, unknown> = {
    Int: 1,
    Float: 1,
    Boolean: false,
    String: 'x',
    DateTime: '2026-01-01T00:00:00Z',
    JSON: {},
    JSONObject: {},
  };
  return scalars[type.name.value] ?? {};
}
