import type { Plugin as EnvelopPlugin } from '@envelop/core';
import { getOperationAST, GraphQLError, Kind, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { RequestBounds } from '../config';
import type { ErrorDetail } from '../errors/app-error';
import type { RequestContext, ServerContext } from '../graphql/context';
import { createExpensiveSlots } from './expensive-slots';
import { createNodeCounter, UncountableOperationError, type NodeCount } from './query-nodes';
import { jsonBytesWithin } from './response-size';

type Context = RequestContext;
type Execute = (args: ExecutionArgs) => unknown;

/** Retry-After of a refused expensive operation: the ones running end within seconds. */
const RETRY_AFTER_SECONDS = 1;

export type RequestBoundsOptions = { bounds: RequestBounds; schema: GraphQLSchema };

/**
 * What one operation may cost, on /graphql, graphql-ws and the SOFA routes alike (ADR 0043), as two
 * plugins: `count` (listed before compiled execution, so a refused document is never compiled)
 * counts the nodes the operation may return and refuses it over MAX_QUERY_NODES before anything
 * runs; `run` (listed after it, so it wraps the executor actually used) holds an expensive query
 * to its share of slots while it runs and fails a query whose answer exceeds MAX_RESPONSE_BYTES.
 * Mutations are counted, but neither held nor size-checked: their effect is applied by the time
 * their answer exists, and their answers are bounded by their batch limits.
 * The node bounds and MAX_RESPONSE_BYTES are read from `bounds` on every request (tests change
 * them on a running server); the slot counts are fixed when the plugins are made.
 */
export function useRequestBounds({ bounds, schema }: RequestBoundsOptions): { count: Plugin<Context>; run: Plugin<Context> } {
  // Made now, so that a list field without a size stops the server at start (list-sizes.ts); SOFA's
  // filtered schema gets its own counter on first use.
  const counters = new WeakMap<GraphQLSchema, ReturnType<typeof createNodeCounter>>([[schema, createNodeCounter(schema)]]);
  const counts = new WeakMap<object, NodeCount>();
  const slots = createExpensiveSlots({
    perCaller: bounds.maxExpensivePerToken,
    perProcess: bounds.maxExpensiveOperations,
    waitMs: bounds.expensiveWaitMs,
    restRatio: bounds.expensiveRestRatio,
  });

  const countExecute: EnvelopPlugin<Context>['onExecute'] = ({ args, setResultAndStopExecution }) => {
    let counter = counters.get(args.schema);
    if (!counter) counters.set(args.schema, (counter = createNodeCounter(args.schema)));
    const ctx = args.contextValue;
    let count: NodeCount | undefined;
    try {
      count = counter(args.document, args.operationName, args.variableValues ?? undefined);
    } catch (error) {
      if (!(error instanceof UncountableOperationError)) throw error;
      ctx.logger.warn({ err: error.message }, 'operation refused: its nodes could not be counted');
      setResultAndStopExecution({ errors: [refusal(`The operation could not be counted: ${error.message}`, {})] });
      return;
    }
    if (!count) return; // no such operation: the executor says so
    counts.set(ctx, count);
    if (count.nodes <= bounds.maxQueryNodes) return;
    ctx.logger.warn({ nodes: count.nodes, bound: bounds.maxQueryNodes }, 'operation refused: over MAX_QUERY_NODES');
    const message =
      `The operation may return ${fmt(count.nodes)} nodes; at most ${fmt(bounds.maxQueryNodes)} are allowed (MAX_QUERY_NODES). ` +
      'Ask for smaller pages (limit), fewer aliases or fewer nested lists.';
    const details = count.byRootField
      .filter((f) => f.nodes > 0)
      .slice(0, 5)
      .map((f) => ({ field: viaRest(ctx) ? restArgument(args) : f.field, message: `may return up to ${fmt(f.nodes)} nodes` }));
    setResultAndStopExecution({
      errors: [refusal(message, { bound: 'MAX_QUERY_NODES', limit: bounds.maxQueryNodes, nodes: count.nodes, details })],
    });
  };

  const runExecute: EnvelopPlugin<Context>['onExecute'] = ({ args, executeFn, setExecuteFn }) => {
    if (getOperationAST(args.document, args.operationName)?.operation !== 'query') return;
    const ctx = args.contextValue;
    const nodes = counts.get(ctx)?.nodes ?? 0;
    const execute = executeFn as Execute;
    setExecuteFn(async (executeArgs: ExecutionArgs) => {
      let release: (() => void) | undefined;
      if (nodes >= bounds.expensiveQueryNodes) {
        const slot = await slots.acquire(ctx.auth?.key ?? `ip:${ctx.clientIp}`);
        if ('refused' in slot) {
          ctx.logger.warn({ nodes, refused: slot.refused }, 'expensive operation refused');
          return { errors: [slot.refused === 'caller' ? tooManyForCaller(nodes) : busy(nodes)] };
        }
        release = slot.release;
      }
      try {
        const result = (await execute(executeArgs)) as ExecutionResult;
        if (jsonBytesWithin(result, bounds.maxResponseBytes) !== undefined) return result;
        ctx.logger.warn({ nodes, bound: bounds.maxResponseBytes }, 'answer refused: over MAX_RESPONSE_BYTES');
        return { errors: [tooLarge(viaRest(ctx) ? restArgument(args) : undefined)] };
      } finally {
        release?.();
      }
    });
  };

  const tooManyForCaller = (nodes: number) =>
    boundError(
      'RATE_LIMITED',
      `At most ${bounds.maxExpensivePerToken} expensive operations (${fmt(bounds.expensiveQueryNodes)} nodes or more) may run at once ` +
        `per token (MAX_EXPENSIVE_OPERATIONS_PER_TOKEN); this one may return ${fmt(nodes)}. Retry in ${RETRY_AFTER_SECONDS} s, or ask for less.`,
      { bound: 'MAX_EXPENSIVE_OPERATIONS_PER_TOKEN', limit: bounds.maxExpensivePerToken, nodes },
      429,
    );
  const busy = (nodes: number) =>
    boundError(
      'SERVICE_UNAVAILABLE',
      `This replica is running ${bounds.maxExpensiveOperations} expensive operations (MAX_EXPENSIVE_OPERATIONS) and none ended ` +
        `within ${bounds.expensiveWaitMs} ms; this one may return ${fmt(nodes)} nodes. Retry in ${RETRY_AFTER_SECONDS} s.`,
      { bound: 'MAX_EXPENSIVE_OPERATIONS', limit: bounds.maxExpensiveOperations, nodes },
      503,
    );
  const tooLarge = (restField: string | undefined) =>
    boundError(
      'RESPONSE_TOO_LARGE',
      `The answer would exceed ${fmt(bounds.maxResponseBytes)} bytes (MAX_RESPONSE_BYTES); ask for a smaller page (limit) or fewer fields.`,
      {
        bound: 'MAX_RESPONSE_BYTES',
        limit: bounds.maxResponseBytes,
        ...(restField ? { details: [{ field: restField, message: 'The answer is too large; ask for fewer records per page' }] } : {}),
      },
      422,
    );

  return {
    count: { onExecute: countExecute },
    run: { onExecute: runExecute },
  };
}

/** A request the REST edge handed to SOFA (Yoga puts the server context into the GraphQL context). */
const viaRest = (ctx: Context): boolean => (ctx as Context & ServerContext).restEdge === true;

/**
 * What a REST client can change to ask for less: the route's `limit` query parameter when it has
 * one (SOFA's operations select one root field and name its variables after its arguments).
 */
function restArgument(args: ExecutionArgs): string {
  const operation = getOperationAST(args.document, args.operationName);
  const selection = operation?.selectionSet.selections[0];
  const root = operation ? args.schema.getRootType(operation.operation) : undefined;
  if (!root || selection?.kind !== Kind.FIELD) return 'limit';
  const field = root.getFields()[selection.name.value];
  return field?.args.some((a) => a.name === 'limit') ? 'limit' : selection.name.value;
}

/** VALIDATION_FAILED, answered as Yoga answers a validation error: 400 (200 to an application/json client on /graphql). */
function refusal(message: string, extensions: { details?: ErrorDetail[]; [key: string]: unknown }): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'VALIDATION_FAILED', ...extensions, http: { spec: true, status: 400 } } });
}

function boundError(code: string, message: string, extensions: Record<string, unknown>, status: number): GraphQLError {
  const retry = status === 429 || status === 503 ? { retryAfter: RETRY_AFTER_SECONDS } : {};
  const headers = 'retryAfter' in retry ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {};
  // Yoga takes the status and headers of /graphql answers from `http` and drops the key; REST reads retryAfter.
  return new GraphQLError(message, { extensions: { code, ...extensions, ...retry, http: { status, headers } } });
}

const fmt = (n: number): string => n.toLocaleString('en-US');
