import { AppError } from '../errors/app-error';
import type { RequestContext } from './context';

/**
 * Who reads a change list and acknowledges it: the API token or admin session of the request.
 * Listings are remembered per reader so that one client's acknowledgement never covers what
 * only another client was shown.
 */
export function readerOf(ctx: Pick<RequestContext, 'auth'>): string {
  if (!ctx.auth) throw new AppError('UNAUTHENTICATED', 'A bearer token is required');
  return ctx.auth.key;
}
