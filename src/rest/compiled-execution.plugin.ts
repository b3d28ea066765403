import type { Plugin as EnvelopPlugin } from '@envelop/core';
import { getOperationAST, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import type { ServerContext } from '../graphql/context';

/** A compiled document, run as an `execute` function. */
type Compiled = (args: {
  rootValue?: unknown;
  contextValue?: unknown;
  variableValues?: unknown;
}) => Promise<ExecutionResult> | ExecutionResult;

/**
 * Compiled execution for SOFA's fixed documents (ADR 0033): every `/api/v1` route executes the
 * one operation SOFA built for it at start-up, so it is compiled once with graphql-jit and run
 * as a plain function instead of walking the document through the generic executor on each
 * request. Only requests the REST edge handed to SOFA (`serverContext.restEdge`) and only
 * queries and mutations: `/graphql` (any document, subscriptions with their argument filtering)
 * keeps the standard executor, as does any document graphql-jit refuses to compile. Everything
 * around execution (context, the error policy's onExecuteDone, SOFA's answer) is unchanged.
 */
export function useCompiledRestExecution(): Plugin {
  const bySchema = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Compiled | null>>();
  const compiled = (schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): Compiled | null => {
    let documents = bySchema.get(schema);
    if (!documents) bySchema.set(schema, (documents = new WeakMap()));
    let query = documents.get(document);
    if (query === undefined) {
      query = compile(schema, document, operationName);
      documents.set(document, query);
    }
    return query;
  };
  const onExecute: EnvelopPlugin['onExecute'] = ({ args, setExecuteFn }) => {
    if ((args.contextValue as ServerContext | undefined)?.restEdge !== true) return;
    const query = compiled(args.schema, args.document, args.operationName ?? undefined);
    if (query === null) return;
    setExecuteFn(query);
  };
  return { onExecute };
}

function compile(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): Compiled | null {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation === 'subscription') return null;
  const result = compileQuery(schema, document, operationName);
  if (!isCompiledQuery(result)) return null;
  const { query } = result as CompiledQuery;
  return (args) => query(args.rootValue, args.contextValue, args.variableValues as Record<string, unknown> | undefined);
}
