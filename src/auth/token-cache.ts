import { LRUCache } from 'lru-cache';
import type { AuthInfo } from './auth-info';

/**
 * Verified API tokens, by SHA-256, for a few seconds: a webshop polling all day would otherwise
 * cost a database lookup per request. Only valid tokens are kept. A revocation through this
 * process's admin API clears it at once; one made elsewhere (the CLI, another replica) takes
 * effect within the TTL.
 */
export type TokenCache = {
  /**
   * The cached caller, or the one lookup under way for this hash, or `load`'s. When an entry
   * expires under load, every request arriving before the database answered used to make a
   * lookup of its own (a hundred concurrent clients: a hundred lookups every TTL, issue 18). A
   * caller `load` finds is cached, unless the cache was cleared meanwhile.
   */
  lookup(hash: string, load: () => Promise<AuthInfo | null>): Promise<AuthInfo | null>;
  clear(): void;
};

const MAX_TOKENS = 10_000;

export function createTokenCache(ttlMs: number): TokenCache {
  // Without a TTL every request is checked against the database, each on its own.
  if (ttlMs <= 0) return { lookup: (_hash, load) => load(), clear: () => undefined };
  const cache = new LRUCache<string, AuthInfo>({ max: MAX_TOKENS, ttl: ttlMs, ttlAutopurge: false });
  let inFlight = new Map<string, Promise<AuthInfo | null>>();
  return {
    lookup(hash, load) {
      const cached = cache.get(hash);
      if (cached) return Promise.resolve(cached);
      let pending = inFlight.get(hash);
      if (!pending) {
        const lookups = inFlight;
        pending = load().then(
          (auth) => {
            lookups.delete(hash);
            // Not cached when a revocation cleared the cache while the lookup was under way.
            if (auth && lookups === inFlight) cache.set(hash, auth);
            return auth;
          },
          (error: unknown) => {
            lookups.delete(hash);
            throw error;
          },
        );
        lookups.set(hash, pending);
      }
      return pending;
    },
    // A lookup begun before a revocation is not joined by requests after it (they start their own).
    clear: () => {
      cache.clear();
      inFlight = new Map();
    },
  };
}
