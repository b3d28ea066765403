import { LRUCache } from 'lru-cache';
import type { AuthInfo } from './auth-info';

/**
 * Verified API tokens, by SHA-256, for a few seconds: a webshop polling all day would otherwise
 * cost a database lookup per request. Only valid tokens are kept. A revocation through this
 * process's admin API clears it at once; one made elsewhere (the CLI, another replica) takes
 * effect within the TTL.
 */
export type TokenCache = {
  get(hash: string): AuthInfo | undefined;
  set(hash: string, auth: AuthInfo): void;
  clear(): void;
};

const MAX_TOKENS = 10_000;

export function createTokenCache(ttlMs: number): TokenCache {
  if (ttlMs <= 0) return { get: () => undefined, set: () => undefined, clear: () => undefined };
  const cache = new LRUCache<string, AuthInfo>({ max: MAX_TOKENS, ttl: ttlMs, ttlAutopurge: false });
  return {
    get: (hash) => cache.get(hash),
    set: (hash, auth) => void cache.set(hash, auth),
    clear: () => cache.clear(),
  };
}
