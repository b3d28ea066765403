import DataLoader from 'dataloader';
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

/** A family of per-request loaders, one per key: written once at module level, as `make` above. */
export type LoaderFamily<Id, Value> = () => Map<string, DataLoader<Id, Value>>;

/**
 * The request's loader of `family` for `key` (a table and channel, an entity type and limit),
 * made with `batch` on the key's first use in the request.
 */
export function perRequestLoader<Id, Value>(
  ctx: Pick<RequestContext, 'requestScope'>,
  family: LoaderFamily<Id, Value>,
  key: string,
  batch: DataLoader.BatchLoadFn<Id, Value>,
): DataLoader<Id, Value> {
  const loaders = perRequest(ctx, family);
  let loader = loaders.get(key);
  if (!loader) {
    loader = new DataLoader(batch);
    loaders.set(key, loader);
  }
  return loader;
}
