import type { AuthInfo } from '../../src/auth/auth-info';
import { createTokenCache } from '../../src/auth/token-cache';

const caller: AuthInfo = { key: 'token:abc', name: 'shop', role: 'integration', channelId: null, tokenHash: 'abc' };

/** A lookup the test answers when it wants: what a database lookup under load looks like. */
function deferredLoad() {
  let answer!: (auth: AuthInfo | null) => void;
  const load = jest.fn(() => new Promise<AuthInfo | null>((resolve) => (answer = resolve)));
  return { load, answer: (auth: AuthInfo | null) => answer(auth) };
}

describe('the verified-token cache', () => {
  it('makes one lookup for the requests that miss together, then answers from the cache', async () => {
    const cache = createTokenCache(60_000);
    const { load, answer } = deferredLoad();
    const waiting = Array.from({ length: 100 }, () => cache.lookup('abc', load));
    answer(caller);
    expect(await Promise.all(waiting)).toEqual(Array(100).fill(caller));
    expect(await cache.lookup('abc', load)).toBe(caller);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('keeps no unknown token and no failed lookup: the next request asks again', async () => {
    const cache = createTokenCache(60_000);
    expect(await cache.lookup('abc', () => Promise.resolve(null))).toBeNull();
    await expect(cache.lookup('abc', () => Promise.reject(new Error('database away')))).rejects.toThrow('database away');
    expect(await cache.lookup('abc', () => Promise.resolve(caller))).toBe(caller);
  });

  it('does not cache what a lookup begun before a revocation found, nor let later requests join it', async () => {
    const cache = createTokenCache(60_000);
    const before = deferredLoad();
    const first = cache.lookup('abc', before.load);
    cache.clear(); // the token was revoked through this process
    const after = deferredLoad();
    const second = cache.lookup('abc', after.load);
    before.answer(caller);
    after.answer(null);
    expect(await first).toBe(caller);
    expect(await second).toBeNull();
    expect(await cache.lookup('abc', () => Promise.resolve(null))).toBeNull();
  });

  it('without a TTL, checks every request on its own', async () => {
    const cache = createTokenCache(0);
    const load = jest.fn(() => Promise.resolve(caller));
    await Promise.all([cache.lookup('abc', load), cache.lookup('abc', load)]);
    expect(load).toHaveBeenCalledTimes(2);
  });
});
