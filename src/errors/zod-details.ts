import type { z } from 'zod';
import { validationFailed, type ErrorDetail } from './app-error';

/** `products[3].price` style paths, the way a client author reads them. */
export function formatPath(path: ReadonlyArray<PropertyKey>, prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

export function zodDetails(error: z.ZodError, prefix = ''): ErrorDetail[] {
  return error.issues.map((issue) => ({
    field: formatPath(issue.path, prefix) || prefix || '(body)',
    message: issue.message,
  }));
}

/** The input as the schema makes it, or a VALIDATION_FAILED error naming every bad field. */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationFailed(zodDetails(parsed.error));
  return parsed.data;
}
