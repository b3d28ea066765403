import { execute, GraphQLError, parse, type DocumentNode, type ExecutionArgs } from 'graphql';
import { createSchema } from 'graphql-yoga';
import { useCompiledRestExecution } from '../../src/rest/compiled-execution.plugin';

const schema = createSchema({
  typeDefs: /* GraphQL */ `
    type Item {
      id: Int!
      name: String
      tags: [String!]!
    }
    type Page {
      payload: [Item!]!
      total: Int!
    }
    type Query {
      page(limit: Int): Page!
      broken: Int
    }
    type Mutation {
      touch(id: Int!): Item
    }
    type Subscription {
      ticks(over: Int): Int
    }
  `,
  resolvers: {
    Query: {
      page: (_root: unknown, args: { limit?: number | null }) => ({
        payload: Array.from({ length: args.limit ?? 2 }, (_, i) => ({ id: i + 1, name: i % 2 ? null : `item ${i + 1}`, tags: ['a'] })),
        total: 10,
      }),
      broken: () => {
        throw new Error('boom');
      },
    },
    Mutation: { touch: (_root: unknown, args: { id: number }) => ({ id: args.id, name: 'touched', tags: [] }) },
  },
});

type Hook = (payload: { args: ExecutionArgs; setExecuteFn: (fn: typeof execute) => void }) => unknown;
const onExecute = useCompiledRestExecution().onExecute as unknown as Hook;

/** What the plugin does for one execution: the execute function it installs, if any. */
function installed(document: DocumentNode, context: Record<string, unknown>): typeof execute | undefined {
  let fn: typeof execute | undefined;
  onExecute({ args: { schema, document, contextValue: context }, setExecuteFn: (f) => (fn = f) });
  return fn;
}

describe('compiled execution of SOFA documents', () => {
  const pageQuery = parse('query page($limit: Int) { page(limit: $limit) { payload { id name tags } total } }');

  it('compiles the REST edge documents and answers exactly as the standard executor', async () => {
    const compiled = installed(pageQuery, { restEdge: true });
    expect(compiled).toBeDefined();
    const args = { schema, document: pageQuery, contextValue: { restEdge: true }, variableValues: { limit: 3 } };
    expect(await compiled!(args)).toEqual(await execute(args));
    const mutation = parse('mutation touch($id: Int!) { touch(id: $id) { id name tags } }');
    const touch = installed(mutation, { restEdge: true });
    expect(await touch!({ schema, document: mutation, variableValues: { id: 7 } })).toEqual({
      data: { touch: { id: 7, name: 'touched', tags: [] } },
    });
  });

  it('keeps a resolver error as a GraphQLError with its original error and path', async () => {
    const document = parse('query broken { broken }');
    const result = await installed(document, { restEdge: true })!({ schema, document });
    expect(result.data).toEqual({ broken: null });
    const [error] = result.errors!;
    expect(error).toBeInstanceOf(GraphQLError);
    expect(error!.path).toEqual(['broken']);
    expect(error!.originalError?.message).toBe('boom');
  });

  it('leaves /graphql and subscriptions to the standard executor', () => {
    expect(installed(pageQuery, {})).toBeUndefined();
    expect(installed(pageQuery, { restEdge: false })).toBeUndefined();
    expect(installed(parse('subscription ticks($over: Int) { ticks(over: $over) }'), { restEdge: true })).toBeUndefined();
  });

  it('compiles each document once', () => {
    expect(installed(pageQuery, { restEdge: true })).toBe(installed(pageQuery, { restEdge: true }));
  });
});
