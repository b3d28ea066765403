import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

export type RateClass = 'read' | 'write';
export type RateLimiters = Record<RateClass, RateLimiterAbstract>;

/**
 * One budget of `points` per `durationSeconds` and key. Shared by every replica through Redis when
 * given; while Redis is unreachable or slow (see src/redis/redis-client.ts), each replica counts in its
 * own memory at once.
 */
export function createLimiter(options: { points: number; durationSeconds: number; keyPrefix: string }, redis?: Redis): RateLimiterAbstract {
  const { points, durationSeconds: duration, keyPrefix } = options;
  const memory = new RateLimiterMemory({ points, duration, keyPrefix });
  // Not ready means the memory limiter at once, instead of a command waiting for a reconnect.
  return redis
    ? new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix, insuranceLimiter: memory, rejectIfRedisNotReady: true })
    : memory;
}

/** SPEC 8: per token (per client IP without one), per minute, reads and writes counted apart. */
export function createRateLimiters(
  limits: { readPerMinute: number; writePerMinute: number },
  redis?: Redis,
  keyPrefix = 'sgw-rl',
): RateLimiters {
  return {
    read: createLimiter({ points: limits.readPerMinute, durationSeconds: 60, keyPrefix: `${keyPrefix}-read` }, redis),
    write: createLimiter({ points: limits.writePerMinute, durationSeconds: 60, keyPrefix: `${keyPrefix}-write` }, redis),
  };
}
