import { execute, GraphQLError, parse, type DocumentNode, type ExecutionArgs } from 'graphql';
import type * as Jit from 'graphql-jit';
import { compileQuery } from 'graphql-jit';
import { createSchema } from 'graphql-yoga';
import { useCompiledExecution, type CompiledExecutionOptions } from '../../src/graphql/compiled-execution.plugin';

// Counts compilations; the compiler itself is graphql-jit's.
jest.mock('graphql-jit', () => {
  const actual = jest.requireActual<typeof Jit>('graphql-jit');
  return { ...actual, compileQuery: jest.fn(actual.compileQuery) };
});
const compilations = compileQuery as jest.MockedFunction<typeof compileQuery>;

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

type Hook = (payload: { args: ExecutionArgs; executeFn: typeof execute; setExecuteFn: (fn: typeof execute) => void }) => unknown;
const hook = (options?: CompiledExecutionOptions) => useCompiledExecution(options).onExecute as unknown as Hook;
const onExecute = hook();

/** What the plugin does for one execution: the execute function it installs, if any. */
function installed(document: DocumentNode, context: Record<string, unknown>, on: Hook = onExecute): typeof execute | undefined {
  let fn: typeof execute | undefined;
  on({ args: { schema, document, contextValue: context }, executeFn: execute, setExecuteFn: (f) => (fn = f) });
  return fn;
}

beforeEach(() => compilations.mockClear());

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

  it('leaves subscriptions to the standard executor', () => {
    expect(installed(parse('subscription ticks($over: Int) { ticks(over: $over) }'), { restEdge: true })).toBeUndefined();
  });

  it('compiles each document once', () => {
    const on = hook();
    installed(pageQuery, { restEdge: true }, on);
    installed(pageQuery, { restEdge: true }, on);
    expect(compilations).toHaveBeenCalledTimes(1);
  });

  it("answers variables that do not coerce with the standard executor's errors", async () => {
    const args = { schema, document: pageQuery, variableValues: { limit: 'three' } };
    expect(await installed(pageQuery, { restEdge: true })!(args)).toEqual(await execute(args));
  });
});

describe('compiled execution of /graphql documents', () => {
  it('compiles a query document only when it is seen again, and only once', async () => {
    const on = hook();
    const document = parse('query page($limit: Int) { page(limit: $limit) { payload { id } } }');
    expect(installed(document, {}, on)).toBeUndefined();
    expect(compilations).not.toHaveBeenCalled();
    const compiled = installed(document, {}, on);
    expect(compiled).toBeDefined();
    expect(installed(document, {}, on)).toBeDefined();
    expect(compilations).toHaveBeenCalledTimes(1);
    const args = { schema, document, variableValues: { limit: 2 } };
    expect(await compiled!(args)).toEqual(await execute(args));
  });

  it('never compiles mutations or subscriptions', () => {
    const on = hook();
    for (const text of ['mutation { touch(id: 1) { id } }', 'subscription { ticks }']) {
      const document = parse(text);
      for (let i = 0; i < 3; i++) expect(installed(document, {}, on)).toBeUndefined();
    }
    expect(compilations).not.toHaveBeenCalled();
  });

  it('compiles each operation of a document by its name', () => {
    const on = hook();
    const document = parse('query a { broken } query b { page { total } }');
    const run = (operationName: string) => {
      let fn: typeof execute | undefined;
      on({ args: { schema, document, operationName, contextValue: {} }, executeFn: execute, setExecuteFn: (f) => (fn = f) });
      return fn;
    };
    expect(run('a')).toBeUndefined();
    expect(run('b')).toBeDefined();
    expect(run('a')).toBeDefined();
    expect(compilations.mock.calls.map((call) => call[2])).toEqual(['b', 'a']);
  });

  it('keeps at most maxDocuments compiled, the least recently used going first', () => {
    const on = hook({ maxDocuments: 2 });
    const documents = ['{ broken }', '{ page { total } }', '{ page { payload { id } } }'].map((text) => parse(text));
    for (const document of documents) {
      installed(document, {}, on);
      installed(document, {}, on);
    }
    expect(compilations).toHaveBeenCalledTimes(3);
    installed(documents[2]!, {}, on); // still compiled
    installed(documents[1]!, {}, on); // still compiled
    expect(compilations).toHaveBeenCalledTimes(3);
    installed(documents[0]!, {}, on); // was dropped for the third: compiled again
    expect(compilations).toHaveBeenCalledTimes(4);
  });

  it('compiles at most maxCompilesPerMinute documents a minute, and runs the rest on the executor', () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      const on = hook({ maxCompilesPerMinute: 1 });
      const [first, second] = ['{ broken }', '{ page { total } }'].map((text) => parse(text));
      for (const document of [first!, second!]) installed(document, {}, on);
      expect(installed(first!, {}, on)).toBeDefined();
      expect(installed(second!, {}, on)).toBeUndefined();
      expect(compilations).toHaveBeenCalledTimes(1);
      now.mockReturnValue(1_060_000);
      expect(installed(second!, {}, on)).toBeDefined();
      expect(compilations).toHaveBeenCalledTimes(2);
    } finally {
      now.mockRestore();
    }
  });
});
