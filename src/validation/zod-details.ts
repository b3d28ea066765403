import type { z } from 'zod';
import { validationFailed, type ErrorDetail } from '../errors/app-error';
import { unstorableDetails } from './storable';
import { formatPath } from '../errors/field-path';

export { formatPath };

export function zodDetails(error: z.ZodError, prefix = ''): ErrorDetail[] {
  return error.issues.map((issue) => ({
    field: formatPath(issue.path, prefix) || prefix || '(body)',
    message: issue.message,
  }));
}

/** The input as the schema makes it, or a VALIDATION_FAILED error naming every bad field. */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  const unstorable = unstorableDetails(input, '');
  if (!parsed.success || unstorable.length > 0) throw validationFailed([...unstorable, ...(parsed.error ? zodDetails(parsed.error) : [])]);
  return parsed.data;
}
