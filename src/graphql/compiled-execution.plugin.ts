import type { Plugin as EnvelopPlugin } from '@envelop/core';
import {
  getOperationAST,
  GraphQLError,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type Source,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { ServerContext } from './context';

/** A compiled operation: graphql-jit's query function. */
type Query = CompiledQuery['query'];
type Execute = (args: ExecutionArgs) => unknown;

export type CompiledExecutionOptions = {
  /** Client documents (/graphql) kept compiled at most; the least recently used goes first. */
  maxDocuments?: number;
  /** Client documents compiled per minute at most; past that they run on the standard executor. */
  maxCompilesPerMinute?: number;
};

/**
 * Compiled execution (ADR 0033): a document's operation is compiled once with graphql-jit and run
 * as a plain function instead of walking the document through the generic executor per request.
 * - SOFA's fixed documents (requests the REST edge handed to SOFA, `serverContext.restEdge`):
 *   about 60, built at start-up, compiled on first use and kept while SOFA holds them.
 * - `/graphql` documents, which any client chooses: only queries (subscriptions keep the
 *   executor's argument filtering; mutations are not the hot path), only a document seen before
 *   (Yoga's parser cache hands back the same DocumentNode for the same text, so identity counts
 *   sightings; a document seen once is never compiled), at most `maxDocuments` kept and
 *   `maxCompilesPerMinute` compiled, so endless distinct documents grow neither memory nor CPU.
 * A document graphql-jit refuses runs on the standard executor, and so does a request whose
 * variables do not coerce (the executor's own errors, word for word). Everything around execution
 * (context, the error policy's onExecuteDone, the result's shape) is unchanged.
 */
export function useCompiledExecution(options: CompiledExecutionOptions = {}): Plugin {
  const maxDocuments = options.maxDocuments ?? 100;
  const budget = compileBudget(options.maxCompilesPerMinute ?? 100);
  const sofa = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Query | null>>();
  // Weak: an entry lives only as long as Yoga's parser cache (or a request) holds its document.
  const seen = new WeakSet<DocumentNode>();
  // Per document, its compiled operations by name ('' for the only one); null when not compiled.
  const clients = new LRUCache<DocumentNode, { schema: GraphQLSchema; byName: Map<string, Query | null> }>({ max: maxDocuments });

  const sofaQuery = (args: ExecutionArgs): Query | null => {
    let documents = sofa.get(args.schema);
    if (!documents) sofa.set(args.schema, (documents = new WeakMap()));
    let query = documents.get(args.document);
    if (query === undefined) documents.set(args.document, (query = compile(args, ['query', 'mutation']) ?? null));
    return query;
  };

  const clientQuery = (args: ExecutionArgs): Query | null => {
    const name = args.operationName ?? '';
    let entry = clients.get(args.document);
    if (entry?.schema !== args.schema) {
      if (!seen.has(args.document)) {
        seen.add(args.document);
        return null;
      }
      entry = { schema: args.schema, byName: new Map() };
      clients.set(args.document, entry);
    }
    let query = entry.byName.get(name);
    if (query === undefined) {
      query = compile(args, ['query'], budget);
      // Out of budget (undefined): run on the executor now; a later request compiles it.
      if (query === undefined) return null;
      entry.byName.set(name, query);
    }
    return query;
  };

  const onExecute: EnvelopPlugin['onExecute'] = ({ args, executeFn, setExecuteFn }) => {
    const query = (args.contextValue as ServerContext | undefined)?.restEdge === true ? sofaQuery(args) : clientQuery(args);
    if (query !== null) setExecuteFn(compiledExecute(query, executeFn as Execute));
  };
  return { onExecute };
}

/** The compiled operation; null when it is not to be compiled or graphql-jit refuses it; undefined past the budget. */
function compile(args: ExecutionArgs, kinds: readonly string[], budget: () => boolean = () => true): Query | null | undefined {
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation || !kinds.includes(operation.operation) || isIntrospection(operation)) return null;
  if (!budget()) return undefined;
  const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
  return isCompiledQuery(result) ? result.query : null;
}

/**
 * GraphiQL's schema query: rare, and the costliest document to compile (~13 ms against ~0.75 for
 * a poll, and ten times the memory), so the executor answers it.
 */
function isIntrospection(operation: OperationDefinitionNode): boolean {
  return operation.selectionSet.selections.some((s) => s.kind === Kind.FIELD && s.name.value.startsWith('__'));
}

/**
 * Runs the compiled query; a request error (no `data`: the variables did not coerce, before any
 * resolver ran) is answered by the standard executor instead, so its messages are the executor's.
 */
function compiledExecute(query: Query, standard: Execute) {
  const orStandard = (args: ExecutionArgs, result: ExecutionResult) => {
    if (!('data' in result)) return standard(args);
    if (!result.errors) return result;
    // Errors first, as the executor orders them, so that the serialised answer is the same too.
    return { errors: result.errors.map((e) => located(e, args.document.loc?.source)), data: result.data };
  };
  return (args: ExecutionArgs) => {
    const result = query(args.rootValue, args.contextValue, args.variableValues);
    return result instanceof Promise ? result.then((r: ExecutionResult) => orStandard(args, r)) : orStandard(args, result);
  };
}

/**
 * graphql-jit's errors carry `locations` but neither AST nodes nor positions, from which Yoga
 * (and the error policy) rebuild every error: without them an answer would lose its locations.
 * The positions are found again in the document's source, so the rebuilt error is the executor's.
 */
function located(error: GraphQLError, source: Source | undefined): GraphQLError {
  if (error.nodes || !error.locations?.length || !source) return error;
  const lineStarts = [0];
  for (const match of source.body.matchAll(/\r\n|[\n\r]/g)) lineStarts.push(match.index + match[0].length);
  return new GraphQLError(error.message, {
    source,
    positions: error.locations.map(({ line, column }) => (lineStarts[line - 1] ?? 0) + column - 1),
    path: error.path ?? null,
    originalError: error.originalError ?? null,
    extensions: error.extensions,
  });
}

/** A fixed window: at most `perMinute` compilations in each minute. */
function compileBudget(perMinute: number): () => boolean {
  let windowStart = 0;
  let used = 0;
  return () => {
    const now = Date.now();
    if (now - windowStart >= 60_000) {
      windowStart = now;
      used = 0;
    }
    if (used >= perMinute) return false;
    used++;
    return true;
  };
}
