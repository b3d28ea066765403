import { handleStreamOrSingleExecutionResult, type Plugin as EnvelopPlugin } from '@envelop/core';
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError, isErrorCode } from '../errors/app-error';
import { databaseOutage, serviceUnavailable } from '../errors/database-errors';
import type { RequestContext } from './context';

/**
 * One place decides what an error looks like to a client, for /graphql and the SOFA routes alike:
 * AppErrors pass as they are; GraphQL's own request errors (bad variables, unknown fields) get
 * VALIDATION_FAILED; anything else is a bug: logged with the request id and masked.
 */
export function useErrorPolicy(): Plugin<RequestContext> {
  const onExecute: EnvelopPlugin<RequestContext>['onExecute'] = ({ args }) => ({
    onExecuteDone: (payload) =>
      handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
        if (result.errors?.length) {
          setResult({ ...result, errors: result.errors.map((e) => classify(e, args.contextValue)) });
        }
      }),
  });
  return {
    onExecute,
    onResultProcess({ result, setResult }) {
      // Parse and validation errors never reach execution; give them the same code.
      if (Array.isArray(result) || !isExecutionResult(result) || !result.errors?.length) return;
      setResult({ ...result, errors: result.errors.map((e) => withCode(e)) });
    },
  };
}

function isExecutionResult(value: unknown): value is ExecutionResult {
  return typeof value === 'object' && value !== null && 'errors' in value;
}

function classify(error: GraphQLError, ctx: RequestContext): GraphQLError {
  const original = error.originalError;
  if (original instanceof AppError) {
    return rebuilt(error, original.message, { ...original.extensions });
  }
  if (!original || original instanceof GraphQLError) return withCode(error);
  const outage = databaseOutage(original);
  if (outage) {
    ctx.logger.warn({ outage, path: error.path?.join('.') }, 'database unavailable; answered 503');
    const unavailable = serviceUnavailable(ctx.requestId);
    return rebuilt(error, unavailable.message, { ...unavailable.extensions });
  }
  ctx.logger.error({ err: original, path: error.path?.join('.') }, 'unexpected error while executing');
  return rebuilt(error, 'Internal server error', { code: 'INTERNAL_SERVER_ERROR', requestId: ctx.requestId });
}

function withCode(error: GraphQLError): GraphQLError {
  if (isErrorCode(error.extensions?.code)) return error;
  return rebuilt(error, error.message, { ...error.extensions, code: 'VALIDATION_FAILED' });
}

/**
 * The error as the client sees it, at the same place: its nodes, or (compiled execution's errors,
 * which have no nodes, ADR 0033) the source and positions its locations come from.
 */
function rebuilt(error: GraphQLError, message: string, extensions: GraphQLError['extensions']): GraphQLError {
  return new GraphQLError(message, {
    nodes: error.nodes ?? null,
    source: error.source,
    positions: error.positions,
    path: error.path ?? null,
    extensions,
  });
}
