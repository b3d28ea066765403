import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client';
import type { AuthInfo } from '../auth/token.service';
import type { TokenCache } from '../auth/token-cache';
import type { EventHub } from '../events/hub';
import type { SecretBox } from '../deliveries/secret-box';
import type { JsonShape } from '../pacing/json-body';

/** Per-request state that the HTTP plugins attach before GraphQL or SOFA execute. */
export type ServerContext = {
  requestId?: string;
  auth?: AuthInfo;
  authLookup?: Promise<AuthInfo | null>;
  rateLimit?: { limit: number; result: { remainingPoints: number; msBeforeNext: number } };
  startedAt?: number;
  /** The request URL's pathname, parsed once when the request arrives (onResponse hooks get no URL). */
  pathname?: string;
  clientIp?: string;
  /** The request body, read once by the body-limits plugin. */
  bodyText?: string;
  /** Its depth and where a long list is in it (src/pacing/json-body.ts), found with the depth check. */
  bodyShape?: JsonShape;
  /** Push lists the REST edge parsed, handed to the execution as they are instead of through SOFA's re-parse. */
  restLists?: Record<string, unknown[]>;
  /** Set when this request holds an Idempotency-Key (see idempotencyRef). */
  idempotencyRef?: string;
  /** Set by the REST edge on the requests it hands to SOFA, whose operations are SOFA's fixed documents. */
  restEdge?: boolean;
};

/**
 * What domains add to every request's context beyond the fields below: a domain that needs one
 * declares it where its GraphQL types are (`declare module '../graphql/context'`, as Fastify's
 * decorators are declared), and the app fills it in. So this file names no domain.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface DomainContext {}

export type RequestContext = DomainContext & {
  prisma: PrismaClient;
  /** The pool beneath Prisma: pushes' transactions and the hot prepared statements (ADR 0033). */
  sql: Pool;
  logger: Logger;
  requestId: string;
  auth: AuthInfo | null;
  /** Per-request instances of what resolvers batch with (`perRequest`, per-request.ts). */
  requestScope: Map<unknown, unknown>;
  events: EventHub;
  secrets: SecretBox;
  clientIp: string;
  /** The Idempotency-Key this request runs under, hashed with its caller; null without one. */
  idempotencyRef: string | null;
  /** Cleared when this process revokes a token. */
  tokenCache: TokenCache;
  /**
   * Call after revoking a token or session: clears the token cache, ends this process's streams
   * opened with it (awaited) and tells the other replicas to do the same.
   */
  credentialsRevoked(): Promise<void>;
};
