import { defaultFieldResolver, isObjectType, type GraphQLSchema } from 'graphql';
import { validationFailed } from '../errors/app-error';
import { isPerRecordBatch, unstorableArguments } from '../validation/graphql-arguments';

/**
 * Wraps every field that takes arguments so that a value the database cannot store (a NUL or
 * lone surrogate in a String or JSON argument, a date before year 1) is a VALIDATION_FAILED
 * naming the argument before any resolver runs. The SOFA routes execute these same fields, so
 * their path and query parameters are covered too. Batch arguments are left to validateBatch,
 * which rejects bad records one by one.
 */
export function guardArguments(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const checked = field.args.filter((arg) => !isPerRecordBatch(arg));
      if (checked.length === 0) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args: Record<string, unknown>, context, info) => {
        const details = unstorableArguments(checked, args);
        if (details.length > 0) throw validationFailed(details);
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}
