import type { Plugin } from 'graphql-yoga';
import type { PublicRoute } from './auth.plugin';

export type PublicDocument = PublicRoute & { contentType: string; render: () => string };

export type PublicRoutesOptions = { documents: readonly PublicDocument[] };

/** Serves the unauthenticated documents (health, OpenAPI, ai-context); built once, served from memory. */
export function usePublicRoutes({ documents }: PublicRoutesOptions): Plugin {
  const cache = new Map<string, string>();
  return {
    onRequest({ request, url, endResponse }) {
      const doc = documents.find(
        (d) => d.path === url.pathname && (request.method === d.method || (d.method === 'GET' && request.method === 'HEAD')),
      );
      if (!doc) return;
      const key = `${doc.method} ${doc.path}`;
      let body = cache.get(key);
      if (body === undefined) {
        body = doc.render();
        if (doc.path !== '/health') cache.set(key, body);
      }
      endResponse(new Response(request.method === 'HEAD' ? null : body, { headers: { 'content-type': doc.contentType } }));
    },
  };
}
