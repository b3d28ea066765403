import { validationFailed, type ErrorDetail } from '../errors/app-error';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

export type PageArgs = { since?: Date | null; after_id?: number | null; limit?: number | null; offset?: number | null };
export type Page = { since: Date | undefined; afterId: number | undefined; limit: number; offset: number };

/** SPEC 4.1: limit defaults to 50 and is clamped to 500 (the clamp shows in meta.limit). */
export function resolvePage(args: PageArgs): Page {
  const details: ErrorDetail[] = [];
  if (args.limit != null && args.limit < 1) details.push({ field: 'limit', message: 'Must be at least 1' });
  if (args.offset != null && args.offset < 0) details.push({ field: 'offset', message: 'Must be 0 or more' });
  if (args.after_id != null && args.since == null) details.push({ field: 'after_id', message: 'Only with since' });
  if (details.length > 0) throw validationFailed(details);
  return {
    since: args.since ?? undefined,
    afterId: args.after_id ?? undefined,
    limit: Math.min(args.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
    offset: args.offset ?? 0,
  };
}
