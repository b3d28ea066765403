import { getNamedType, isListType, isNonNullType, type GraphQLArgument } from 'graphql';
import type { ErrorDetail } from '../errors/app-error';
import { unstorableDetails } from './storable';

/**
 * A list of JSON records (`products: [JSON]!`) is an inbound batch: its records are checked one
 * by one by validateBatch, so that one poison record does not cost the good ones.
 */
export function isPerRecordBatch(arg: GraphQLArgument): boolean {
  const type = isNonNullType(arg.type) ? arg.type.ofType : arg.type;
  return isListType(type) && getNamedType(type).name === 'JSON';
}

/** Unstorable values in the (coerced) arguments of a field, batches excepted, named by argument path. */
export function unstorableArguments(args: readonly GraphQLArgument[], values: Record<string, unknown>): ErrorDetail[] {
  return args
    .filter((arg) => !isPerRecordBatch(arg) && values[arg.name] != null)
    .flatMap((arg) => unstorableDetails(values[arg.name], arg.name));
}
