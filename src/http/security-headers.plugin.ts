import type { Plugin } from 'graphql-yoga';

/** Headers every response carries; an API answer is never framed, sniffed or cached by shared caches. */
export function useSecurityHeaders(): Plugin {
  return {
    onResponse({ response }) {
      const h = response.headers;
      h.set('x-content-type-options', 'nosniff');
      h.set('x-frame-options', 'DENY');
      h.set('referrer-policy', 'no-referrer');
      h.set('cross-origin-opener-policy', 'same-origin');
      if (!h.has('cache-control')) h.set('cache-control', 'no-store');
      // The GraphiQL page loads its own scripts; every other answer is data and needs none.
      if (!h.get('content-type')?.startsWith('text/html')) {
        h.set('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
      }
    },
  };
}
