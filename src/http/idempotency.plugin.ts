import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { PrismaClient } from '../generated/prisma/client';
import { errorResponse } from '../errors/app-error';
import type { ServerContext } from '../graphql/context';
import type { AuthInfo } from '../auth/token.service';
import { IDEMPOTENCY_HEADER, idempotencyRef, keyProblem, REPLAYED_HEADER, requestFingerprint } from '../idempotency/idempotency-key';
import { claimKey, completeKey, pruneExpiredKeys, releaseKey, renewLease, type KeyIdentity } from '../idempotency/idempotency.service';
import { API_BASE } from '../routing/route-table';
import type { StepPlugin } from './plugin-chain';
import type { RouteMatching } from './route-match.plugin';

/** The headers of an answer that belong to it (not to the moment it is sent, like rate-limit counters). */
const REPLAYED_HEADERS = ['content-type', 'location'];

type HeldKey = { id: KeyIdentity; leaseToken: string; renewal: NodeJS.Timeout };

export type IdempotencyOptions = {
  prisma: PrismaClient;
  routing: RouteMatching;
  logger: Logger;
  /** A claim not renewed for this long is taken to belong to a crashed process. */
  leaseMs?: number;
  /** The lease is renewed for at most this long; a request still running then may be run again by a retry. */
  maxHoldMs?: number;
  /** Keys past their 24 hours are deleted at most this often, by the next keyed request. */
  pruneIntervalMs?: number;
};

/**
 * Idempotency-Key on the POST routes of /api/v1 that need a token (docs/adr/0013-idempotency-keys.md):
 * runs after authentication and rate limiting, before the REST edge validates and SOFA executes,
 * so that a validation error is replayed like any other answer.
 */
export function useIdempotencyKeys(options: IdempotencyOptions): StepPlugin<'route' | 'body' | 'caller' | 'role', 'idempotency'> {
  const { prisma, logger } = options;
  const leaseMs = options.leaseMs ?? 30_000;
  const pruneIntervalMs = options.pruneIntervalMs ?? 600_000;
  const maxHoldMs = options.maxHoldMs ?? 600_000;
  const held = new WeakMap<object, HeldKey>();
  let lastPrune = 0;

  const pruneNowAndThen = () => {
    if (Date.now() - lastPrune < pruneIntervalMs) return;
    lastPrune = Date.now();
    pruneExpiredKeys(prisma).then(
      (count) => count > 0 && logger.info({ count }, 'expired idempotency keys deleted'),
      (error: unknown) => logger.warn({ err: error }, 'pruning idempotency keys failed'),
    );
  };

  const claim = async ({ request, url, serverContext, endResponse }: OnRequestPayload, value: string, auth: AuthInfo): Promise<void> => {
    const match = options.routing.routeOf(serverContext);
    // Unknown routes get their 404/405 from the REST edge; public sign-in routes answer secrets that are not kept.
    if (match === undefined || match === 'method-not-allowed' || match.route.public) return;
    // A dry run stores nothing, so it neither consumes a key nor replays one (ADR 0028).
    if (url.searchParams.get('dry_run') === 'true' && match.route.queryArgs?.includes('dry_run')) return;
    const problem = keyProblem(value);
    if (problem) {
      endResponse(
        errorResponse(
          'VALIDATION_FAILED',
          `Invalid ${IDEMPOTENCY_HEADER} header: ${problem}`,
          [{ field: IDEMPOTENCY_HEADER, message: problem }],
          serverContext.requestId,
        ),
      );
      return;
    }
    const id: KeyIdentity = { scope: auth.key, key: value };
    const fingerprint = requestFingerprint(request.method, url, serverContext.bodyText ?? '');
    let outcome: Awaited<ReturnType<typeof claimKey>>;
    try {
      outcome = await claimKey(prisma, id, fingerprint, leaseMs);
    } catch (error) {
      logger.error({ err: error, requestId: serverContext.requestId }, 'idempotency key could not be claimed');
      endResponse(
        errorResponse(
          'SERVICE_UNAVAILABLE',
          'The database is unavailable; retry with the same Idempotency-Key',
          undefined,
          serverContext.requestId,
          { 'retry-after': '5' },
        ),
      );
      return;
    }
    pruneNowAndThen();
    switch (outcome.kind) {
      case 'claimed': {
        const claimedAt = Date.now();
        const renewal = setInterval(
          () => {
            // A request whose answer never came (a later plugin threw, so no onResponse) must not hold its key forever.
            if (Date.now() - claimedAt > maxHoldMs) return clearInterval(renewal);
            renewLease(prisma, id, outcome.leaseToken, leaseMs).catch((error: unknown) =>
              logger.warn({ err: error }, 'idempotency lease not renewed'),
            );
          },
          Math.max(1, Math.floor(leaseMs / 3)),
        );
        renewal.unref();
        held.set(serverContext, { id, leaseToken: outcome.leaseToken, renewal });
        serverContext.idempotencyRef = idempotencyRef(id.scope, id.key, outcome.since);
        return;
      }
      case 'completed': {
        const headers = new Headers(outcome.response.headers);
        headers.set(REPLAYED_HEADER.toLowerCase(), 'true');
        endResponse(new Response(outcome.response.body, { status: outcome.response.status, headers }));
        return;
      }
      case 'in-progress':
        endResponse(
          errorResponse(
            'CONFLICT',
            `A request with this ${IDEMPOTENCY_HEADER} is still being processed; retry shortly to get its answer`,
            [{ field: IDEMPOTENCY_HEADER, message: 'In use by a request that has not finished' }],
            serverContext.requestId,
            { 'retry-after': '1' },
          ),
        );
        return;
      case 'mismatch':
        endResponse(
          errorResponse(
            'IDEMPOTENCY_KEY_REUSED',
            `This ${IDEMPOTENCY_HEADER} was used for a different request in the last 24 hours; use a new key for a new request`,
            [{ field: IDEMPOTENCY_HEADER, message: 'Already used with a different method, path, query or body' }],
            serverContext.requestId,
          ),
        );
    }
  };

  const store = async (response: Response, serverContext: ServerContext, claim: HeldKey): Promise<void> => {
    try {
      // A 5xx says nothing about the request itself (an outage, a bug): the retry runs it again.
      if (response.status >= 500) {
        await releaseKey(prisma, claim.id, claim.leaseToken);
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const headerValue = response.headers.get(name);
        if (headerValue !== null) headers[name] = headerValue;
      }
      const stored = await completeKey(prisma, claim.id, claim.leaseToken, {
        status: response.status,
        body: await response.clone().text(),
        headers,
      });
      if (!stored) logger.warn({ requestId: serverContext.requestId }, 'idempotency lease was lost before the answer was stored');
    } catch (error) {
      // The lease then runs out and a retry runs the request again: the answer is not lost, only not replayed.
      logger.error({ err: error, requestId: serverContext.requestId }, 'idempotent answer not stored');
    }
  };

  return {
    onRequest(payload) {
      const { request, url, serverContext } = payload;
      // Polls and unkeyed requests go on at once instead of through a promise.
      if (request.method !== 'POST' || !url.pathname.startsWith(`${API_BASE}/`)) return;
      const value = request.headers.get(IDEMPOTENCY_HEADER);
      const auth = serverContext.auth;
      if (value === null || !auth) return;
      return claim(payload, value, auth);
    },

    onResponse({ response, serverContext }) {
      const heldKey = held.get(serverContext);
      if (!heldKey) return;
      held.delete(serverContext);
      clearInterval(heldKey.renewal);
      return store(response, serverContext, heldKey);
    },
  };
}

/** What the plugin hooks are given; the slow paths below take the same. */
type OnRequestPayload = Parameters<NonNullable<Plugin<object, ServerContext>['onRequest']>>[0];
