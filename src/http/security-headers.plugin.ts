import type { Plugin } from 'graphql-yoga';
import { GRAPHIQL_CSP } from './graphiql';

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
      if (h.has('content-security-policy')) return; // the console and the API reference set their own
      // The one HTML page without its own policy is GraphiQL's (Yoga renders it, with a content type
      // only): its files come from this origin. Every other answer is data and needs nothing.
      h.set(
        'content-security-policy',
        h.get('content-type')?.startsWith('text/html') ? GRAPHIQL_CSP : "default-src 'none'; frame-ancestors 'none'",
      );
    },
  };
}
