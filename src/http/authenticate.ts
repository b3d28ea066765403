import type { PrismaClient } from '../generated/prisma/client';
import { verifySession } from '../accounts/account.service';
import type { ServerContext } from '../graphql/context';
import type { TokenCache } from '../auth/token-cache';
import { verifyToken, type AuthInfo } from '../auth/token.service';

export type Authenticator = { prisma: PrismaClient; lastUsedResolutionMs: number; tokenCache?: TokenCache | undefined };

/** The token of an `Authorization: Bearer <token>` header, if that is what the header holds. */
export function bearerToken(header: string | null | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

/** The caller a bearer token names: an admin session (`sgs_…`) or an API token; null for neither. */
export function verifyBearer(authenticator: Authenticator, token: string): Promise<AuthInfo | null> {
  return token.startsWith('sgs_')
    ? verifySession(authenticator.prisma, token)
    : verifyToken(authenticator.prisma, token, {
        lastUsedResolutionMs: authenticator.lastUsedResolutionMs,
        cache: authenticator.tokenCache,
      });
}

/**
 * The caller behind a request's bearer token, looked up once per request whichever plugin asks
 * first (the rate limiter keys on it, the auth gate enforces it).
 */
export function authenticate(authenticator: Authenticator, serverContext: ServerContext, request: Request): Promise<AuthInfo | null> {
  serverContext.authLookup ??= (async () => {
    const token = bearerToken(request.headers.get('authorization'));
    const auth = token ? await verifyBearer(authenticator, token) : null;
    if (auth) serverContext.auth = auth;
    return auth;
  })();
  return serverContext.authLookup;
}
