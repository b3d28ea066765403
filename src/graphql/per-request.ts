import type { RequestContext } from './context';

/**
 * The request's own instance of what `make` builds (a DataLoader, a map of them), made on its
 * first use and shared by every resolver of that request, so that list fields load their
 * relations in one statement rather than one per row. `make` is the key: pass a function written
 * once at module level, never an arrow made per call.
 */
export function perRequest<Ctx extends Pick<RequestContext, 'requestScope'>, T>(ctx: Ctx, make: (ctx: Ctx) => T): T {
  if (!ctx.requestScope.has(make)) ctx.requestScope.set(make, make(ctx));
  return ctx.requestScope.get(make) as T;
}
