import type { Plugin } from 'graphql-yoga';
import type { PrismaClient } from '../generated/prisma/client';
import { errorResponse } from '../errors/app-error';
import type { ServerContext } from '../graphql/context';
import { verifyToken } from './token.service';

export type PublicRoute = { method: string; path: string };

/**
 * Every route needs `Authorization: Bearer <token>` except the public ones. (Yoga renders the
 * GraphiQL page before any plugin runs and never executes a query there.)
 */
export function useBearerAuth(options: {
  prisma: PrismaClient;
  publicRoutes: readonly PublicRoute[];
  lastUsedResolutionMs: number;
}): Plugin<object, ServerContext> {
  const isPublic = (method: string, path: string) =>
    options.publicRoutes.some((r) => r.path === path && (r.method === method || (r.method === 'GET' && method === 'HEAD')));
  return {
    async onRequest({ request, url, serverContext, endResponse }) {
      if (isPublic(request.method, url.pathname)) return;
      const header = request.headers.get('authorization') ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const auth = match ? await verifyToken(options.prisma, match[1]!, options.lastUsedResolutionMs) : null;
      if (!auth) {
        endResponse(
          errorResponse(
            'UNAUTHENTICATED',
            match ? 'The bearer token is not valid' : 'Missing Authorization: Bearer <token> header',
            undefined,
            serverContext.requestId,
            { 'www-authenticate': 'Bearer' },
          ),
        );
        return;
      }
      serverContext.auth = auth;
    },
  };
}
