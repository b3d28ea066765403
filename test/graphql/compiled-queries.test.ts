import { getIntrospectionQuery } from 'graphql';
import type * as Jit from 'graphql-jit';
import { compileQuery } from 'graphql-jit';
import { backends } from '../support/database';
import { useApiFixture } from '../support/http';

// Counts compilations; the compiler itself is graphql-jit's.
jest.mock('graphql-jit', () => {
  const actual = jest.requireActual<typeof Jit>('graphql-jit');
  return { ...actual, compileQuery: jest.fn(actual.compileQuery) };
});
const compilations = compileQuery as jest.MockedFunction<typeof compileQuery>;

const POLL =
  'query poll($limit: Int, $since: DateTime) { updatedProducts(limit: $limit, since: $since) { payload { id externalId erpId isNew changedFields context data updatedAt } meta { total limit offset } } }';
const FRAGMENTS = `query two($full: Boolean!) {
  first: product(externalId: "C1") { ...state data @include(if: $full) }
  second: product(externalId: "C2") { ...state revision @skip(if: $full) }
  missing: product(externalId: "nowhere") { ...state }
  bad: partner(id: 1, externalId: "x") { id }
}
fragment state on Product { externalId pending updatedAt }`;

/** Documents and variables whose answers must not depend on the executor (ADR 0033). Introspection is never compiled. */
const CASES: Array<[string, string, Record<string, unknown>?]> = [
  ['the poll with variables', POLL, { limit: 2 }],
  ['the poll with a DateTime variable', POLL, { limit: 5, since: '2000-01-01T00:00:00.000Z' }],
  ['variables that do not coerce', POLL, { limit: 'ten' }],
  ['a missing required variable', FRAGMENTS, {}],
  ['an error in one field (partial data)', '{ one: product(externalId: "C1") { externalId } bad: partner(id: 1, externalId: "x") { id } }'],
  ['an error in a non-null field (data null)', '{ updatedProducts(limit: 1) { meta { total } } failure(id: 999999) { id } }'],
  ['an unauthorised query', '{ apiTokens { id name } }'],
  ['fragments, aliases and @include', FRAGMENTS, { full: true }],
  ['fragments, aliases and @skip', FRAGMENTS, { full: false }],
  ['introspection', getIntrospectionQuery()],
];

describe.each(backends)('/graphql queries, compiled after their first sighting, on %s', (backend) => {
  const ctx = useApiFixture(backend);

  beforeAll(async () => {
    const pushed = await ctx.api.graphql(
      'mutation { syncProducts(products: [{external_id: "C1", name: "one", price: 1.5}, {external_id: "C2", name: "two"}, {external_id: "C3", name: "three", price: 3}]) { created } }',
    );
    expect(pushed.body.data.syncProducts.created).toBe(3);
  });

  it.each(CASES.map(([name, query, variables], i) => [name, query, variables, i] as const))(
    'answers %s exactly as the standard executor',
    async (_name, query, variables, i) => {
      // Each case its own document text (a comment), so that its first request is its first sighting.
      const document = `${query}\n# case ${i}`;
      const standard = await ctx.api.graphql(document, variables);
      compilations.mockClear();
      const compiled = [await ctx.api.graphql(document, variables), await ctx.api.graphql(document, variables)];
      expect(compilations).toHaveBeenCalledTimes(query.includes('__schema') ? 0 : 1);
      for (const answer of compiled) {
        expect(answer.status).toBe(standard.status);
        expect(answer.body).toEqual(standard.body);
        expect(answer.text).toBe(standard.text);
      }
    },
  );

  it('leaves mutations to the standard executor', async () => {
    const mutation = 'mutation { syncProducts(products: [{external_id: "C4", name: "four"}]) { processed } }';
    compilations.mockClear();
    for (let i = 0; i < 3; i++) expect((await ctx.api.graphql(mutation)).body.data.syncProducts.processed).toBe(1);
    expect(compilations).not.toHaveBeenCalled();
  });
});
