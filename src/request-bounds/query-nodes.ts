import {
  getNamedType,
  getOperationAST,
  isCompositeType,
  Kind,
  validate,
  visit,
  type ArgumentNode,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { createComplexityRule, type ComplexityEstimatorArgs } from 'graphql-query-complexity';
import { isListField, listSizes, SIZING_ARGUMENTS } from './list-sizes';

/** What an operation may return, counted before it runs (ADR 0043). */
export type NodeCount = {
  /** Objects in list items the operation can return at most, GitHub-style (scalars and single objects count 0). */
  nodes: number;
  /** The same per root field, by response key (alias or name); the largest first. */
  byRootField: Array<{ field: string; nodes: number }>;
};

/**
 * Selections the count may visit in one document (fragments are visited once per spread): a
 * document of nested fragment spreads cannot make the count itself the expensive part.
 */
const MAX_VISITED_SELECTIONS = 10_000;

export class UncountableOperationError extends Error {}

/**
 * Counts with graphql-query-complexity (fragments, inline fragments on interfaces, @skip/@include,
 * variables) and the list sizes of `list-sizes.ts`: a list field multiplies its items' nodes by
 * its size, a page field (`limit`) multiplies its payload, so that
 * `products(limit: 500) { payload { history(limit: 100) { changes } } }` is 500 × 100 × (1 + 20).
 * Returns undefined when the executor will refuse the request anyway (no such operation).
 */
export function createNodeCounter(schema: GraphQLSchema) {
  const count = uncachedCounter(schema);
  // Counting costs about as much as a poll's whole execution (validation machinery); SOFA's and
  // Yoga's parser caches hand back the same document for the same text, so a count is kept per
  // document and the values of the variables it can depend on (sizes, @skip, @include): a
  // `since`, `offset` or `after_id` that changes on every page does not change it.
  const cache = new WeakMap<DocumentNode, { sizing: string[]; counts: Map<string, NodeCount | undefined> }>();
  return (document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown> | undefined) => {
    let entry = cache.get(document);
    if (!entry) cache.set(document, (entry = { sizing: sizingVariables(document), counts: new Map() }));
    const { counts } = entry;
    const key = `${operationName ?? ''}\u0000${JSON.stringify(entry.sizing.map((name) => variables?.[name]))}`;
    if (counts.has(key)) return counts.get(key);
    const result = count(document, operationName, variables);
    if (counts.size >= MAX_COUNTS_PER_DOCUMENT) counts.clear();
    counts.set(key, result);
    return result;
  };
}

/** Distinct variable values whose count is kept per document (page sizes are few; the cache starts over when full). */
const MAX_COUNTS_PER_DOCUMENT = 100;

/** The variables a count can depend on: those given to a sizing argument (`limit`, `minutes`) or to @skip/@include. */
function sizingVariables(document: DocumentNode): string[] {
  const names = new Set<string>();
  const add = (args: readonly ArgumentNode[] | undefined, sizing: (name: string) => boolean) => {
    for (const arg of args ?? []) if (arg.value.kind === Kind.VARIABLE && sizing(arg.name.value)) names.add(arg.value.name.value);
  };
  visit(document, {
    Field: (node) => add(node.arguments, (name) => SIZING_ARGUMENTS.has(name)),
    Directive: (node) => add(node.arguments, () => true),
  });
  return [...names].sort();
}

function uncachedCounter(schema: GraphQLSchema) {
  const sizeOf = listSizes(schema);
  return (document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown> | undefined) => {
    const operation = getOperationAST(document, operationName);
    if (!operation) return undefined;
    const byRootField = new Map<string, number>();
    const rootType = schema.getRootType(operation.operation);
    const estimator = (e: ComplexityEstimatorArgs): number => {
      const nodes = fieldNodes(e);
      if (e.type === rootType) {
        const key = e.node.alias?.value ?? e.node.name.value;
        byRootField.set(key, (byRootField.get(key) ?? 0) + nodes);
      }
      return nodes;
    };
    const fieldNodes = ({ type, field, args, childComplexity }: ComplexityEstimatorArgs): number => {
      // Introspection answers describe the fixed schema; the depth and token limits bound them.
      if (type.name.startsWith('__') || field.name.startsWith('__') || !isCompositeType(getNamedType(field.type))) return 0;
      const size = sizeOf(type, field);
      if (size?.kind === 'sliced') {
        const value = args[size.argument] as unknown;
        const items = Math.min(Math.max(typeof value === 'number' ? value : size.default, 0), size.max);
        return isListField(field) ? items * (1 + childComplexity) : items * childComplexity;
      }
      if (size?.kind === 'page-items') return 1 + childComplexity; // multiplied by the page's limit
      if (size?.kind === 'assumed') return size.size * (1 + childComplexity);
      return childComplexity; // a single object
    };
    let nodes: number | undefined;
    const rule = createComplexityRule({
      maximumComplexity: Infinity,
      estimators: [estimator],
      variables: variables ?? {},
      maxQueryNodes: MAX_VISITED_SELECTIONS,
      onComplete: (complexity) => (nodes = complexity),
    });
    try {
      // Other rules' errors (an argument that does not coerce) are the executor's to report: a field
      // whose arguments do not coerce never runs, and its count is left out here too.
      validate(schema, onlyOperation(document, operation), [rule]);
    } catch (error) {
      throw new UncountableOperationError(error instanceof Error ? error.message : String(error));
    }
    if (nodes === undefined) throw new UncountableOperationError('The operation could not be counted');
    return {
      nodes,
      byRootField: [...byRootField].map(([field, n]) => ({ field, nodes: n })).sort((a, b) => b.nodes - a.nodes),
    } satisfies NodeCount;
  };
}

/** The operation with every fragment: the rule counts each operation of a document it is given. */
function onlyOperation(document: DocumentNode, operation: OperationDefinitionNode): DocumentNode {
  return {
    kind: Kind.DOCUMENT,
    definitions: document.definitions.filter((d) => d === operation || d.kind === Kind.FRAGMENT_DEFINITION),
  };
}
