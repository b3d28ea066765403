import { AppError } from '../errors/app-error';
import type { RequestContext } from '../graphql/context';

/** The one place that decides whether a caller may run an admin operation. */
export function requireAdmin(ctx: Pick<RequestContext, 'auth'>): void {
  if (ctx.auth?.role !== 'admin') throw new AppError('FORBIDDEN', 'This operation needs a token with role admin');
}
