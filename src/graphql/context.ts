import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client';
import type { AuthInfo } from '../auth/token.service';
import type { TokenCache } from '../auth/token-cache';
import type { EventHub } from '../events/hub';
import type { SecretBox } from '../deliveries/secret-box';
import type { AccountDeps } from '../accounts/account.service';
import type { Loaders } from './loaders';
import type { JsonShape } from '../http/json-body';

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
  /** Its depth and where a long list is in it (src/http/json-body.ts), found with the depth check. */
  bodyShape?: JsonShape;
  /** Push lists the REST edge parsed, handed to the execution as they are instead of through SOFA's re-parse. */
  restLists?: Record<string, unknown[]>;
  /** Set when this request holds an Idempotency-Key (see idempotencyRef). */
  idempotencyRef?: string;
  /** Set by the REST edge on the requests it hands to SOFA, whose operations are SOFA's fixed documents. */
  restEdge?: boolean;
};

export type RequestContext = {
  prisma: PrismaClient;
  /** The pool beneath Prisma: pushes' transactions and the hot prepared statements (ADR 0033). */
  sql: Pool;
  logger: Logger;
  requestId: string;
  auth: AuthInfo | null;
  loaders: Loaders;
  events: EventHub;
  secrets: SecretBox;
  clientIp: string;
  accounts: AccountDeps;
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
