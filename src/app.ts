import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { CONSOLE_PATH, useAdminConsole } from './admin/console.plugin';
import { useBearerAuth } from './http/auth.plugin';
import { createTokenCache } from './auth/token-cache';
import { createLiveStreams, type LiveStreams } from './auth/live-streams';
import type { AppConfig } from './config';
import type { Store } from './db/store';
import { PUBLIC_ACCOUNT_FIELDS } from './accounts/account.schema';
import type { AccountDeps } from './accounts/account.service';
import { fullPath } from './routing/route-table';
import type { EventHub } from './events/hub';
import type { SecretBox } from './deliveries/secret-box';
import type { RequestContext, ServerContext } from './graphql/context';
import { useErrorPolicy } from './graphql/error-policy.plugin';
import { restRoutes, schema } from './modules';
import { usePublicRoutes, type PublicDocument } from './http/public-routes.plugin';
import { useRateLimit } from './http/use-rate-limit';
import type { RateLimiters } from './rate-limits/limiters';
import { useBodyLimits } from './http/body-limits.plugin';
import { useIdempotencyKeys } from './http/idempotency.plugin';
import { useRevocableStreams } from './http/live-streams.plugin';
import { GRAPHQL_ENDPOINT } from './http/endpoints';
import type { Metrics } from './ops/metrics';
import { METRICS_PATH, READY_PATH, useOps } from './ops/ops.plugin';
import type { Readiness } from './ops/readiness';
import { useRequestLog } from './http/request-log.plugin';
import { useSecurityHeaders } from './http/security-headers.plugin';
import { GRAPHIQL_ASSETS_PATH, GRAPHIQL_OPTIONS, renderGraphiQL, useGraphiqlAssets } from './http/graphiql';
import { useHttpConventions } from './http/http-conventions.plugin';
import { API_REFERENCE_PATH, useApiReference } from './rest/api-reference.plugin';
import { graphqlLimitPlugins } from './graphql/limits';
import { renderAiContext } from './rest/ai-context';
import { createRestErrorHandler } from './rest/error-handler';
import { buildOpenApiDocument } from './rest/openapi';
import { useRestEdge } from './rest/rest-edge.plugin';
import { useRouteMatch } from './http/route-match.plugin';
import { pluginChain } from './http/plugin-chain';
import { useAuthentication } from './http/authentication.plugin';
import { useRouteRoles } from './rest/route-roles.plugin';
import { useCompiledExecution } from './graphql/compiled-execution.plugin';
import { useRequestBounds } from './request-bounds/request-bounds.plugin';
import { sofaConfig, useRestSofa } from './rest/sofa';

/** The Yoga app, with the registry of its open subscriptions (graphql-ws registers its sockets there). */
export type App = YogaServerInstance<ServerContext, RequestContext> & { liveStreams: LiveStreams };

export type AppDeps = {
  config: Pick<
    AppConfig,
    'maxBodyBytes' | 'tokenLastUsedResolutionMs' | 'tokenCacheTtlMs' | 'trustProxy' | 'graphqlLimits' | 'requestBounds' | 'corsOrigins'
  > & {
    /** The admin console's build; tests point it at a fixture. Default: dist/console. */
    consoleDir?: string;
  };
  /** Shared through Redis between replicas when the server has REDIS_URL. */
  rateLimiters: RateLimiters;
  accounts: Omit<AccountDeps, 'prisma'>;
  db: Pick<Store, 'prisma' | 'backend' | 'sql'>;
  logger: Logger;
  events: EventHub;
  secrets: SecretBox;
  metrics: Metrics;
  /** GET /ready; the server adds its worker's heartbeat. */
  readiness: () => Promise<Readiness>;
};

/** Builds the whole HTTP application without listening, so tests call it in-process. */
export function createApp({ config, db, logger, events, secrets, rateLimiters, accounts, metrics, readiness }: AppDeps): App {
  const accountDeps: AccountDeps = { ...accounts, prisma: db.prisma };
  const tokenCache = createTokenCache(config.tokenCacheTtlMs);
  const authenticator = { prisma: db.prisma, lastUsedResolutionMs: config.tokenLastUsedResolutionMs, tokenCache };
  // Streams are re-verified as often as a cached token is trusted (at least every second with the cache off).
  const liveStreams = createLiveStreams({ prisma: db.prisma, recheckIntervalMs: Math.max(config.tokenCacheTtlMs, 1_000), logger });
  // A revocation announced by any replica (or the CLI) reaches every replica through the event hub.
  events.onRevocation(() => {
    tokenCache.clear();
    void liveStreams.recheck();
  });
  const credentialsRevoked = async () => {
    tokenCache.clear();
    await liveStreams.recheck();
    events.publishRevocation();
  };
  const publicDocuments: PublicDocument[] = [
    {
      method: 'GET',
      path: '/health',
      contentType: 'application/json',
      render: () => JSON.stringify({ status: 'ok', backend: db.backend }),
    },
    {
      method: 'GET',
      path: '/api/doc',
      contentType: 'application/json',
      render: () => JSON.stringify(buildOpenApiDocument(schema, restRoutes)),
    },
    {
      method: 'GET',
      path: '/.well-known/ai-context',
      contentType: 'text/markdown; charset=utf-8',
      render: () => renderAiContext(restRoutes, config.requestBounds),
    },
  ];

  const bounds = useRequestBounds({ bounds: config.requestBounds, schema });
  const routing = useRouteMatch({ routes: restRoutes });
  const yoga = createYoga<ServerContext, RequestContext>({
    schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    landingPage: false,
    renderGraphiQL,
    graphiql: GRAPHIQL_OPTIONS,
    // Yoga answers any URL that merely ends with this string; ours (public-routes) serves /health.
    // A fragment never reaches a server, so this disables Yoga's check.
    healthCheckEndpoint: '#yoga-health-check-disabled',
    maskedErrors: false, // useErrorPolicy masks, with the request id at hand
    cors:
      config.corsOrigins.length > 0
        ? {
            origin: config.corsOrigins,
            methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
            allowedHeaders: ['authorization', 'content-type', 'x-request-id'],
            maxAge: 600,
          }
        : false,
    logging: {
      debug: (...args) => logger.debug({ yoga: args }),
      info: (...args) => logger.info({ yoga: args }),
      warn: (...args) => logger.warn({ yoga: args }),
      error: (...args) => logger.error({ yoga: args }),
    },
    context: ({ requestId, auth, clientIp, idempotencyRef }) => ({
      prisma: db.prisma,
      sql: db.sql,
      requestId: requestId ?? 'unknown',
      auth: auth ?? null,
      logger: logger.child({ requestId }),
      requestScope: new Map(),
      events,
      secrets,
      clientIp: clientIp ?? 'unknown',
      idempotencyRef: idempotencyRef ?? null,
      accounts: accountDeps,
      tokenCache,
      credentialsRevoked,
    }),
    // The order is checked by the types: a plugin compiles in the chain only after the plugins that
    // give the stages it needs (src/http/plugin-chain.ts).
    plugins: pluginChain()
      .use(useRequestLog({ logger }), routing.plugin, useSecurityHeaders())
      .use(useBodyLimits({ maxBytes: config.maxBodyBytes, graphqlEndpoint: GRAPHQL_ENDPOINT }))
      .use(useAuthentication({ ...authenticator, logger, exemptPaths: ['/health', READY_PATH] }))
      .use(
        useRateLimit({
          limiters: rateLimiters,
          graphqlEndpoint: GRAPHQL_ENDPOINT,
          trustProxy: config.trustProxy,
          logger,
          onRejected: metrics.rateLimitRejected,
          exemptPaths: ['/health', READY_PATH],
        }),
      )
      .use(
        useHttpConventions({
          routes: restRoutes,
          routing,
          graphqlEndpoint: GRAPHQL_ENDPOINT,
          getPaths: [...publicDocuments.map((d) => d.path), READY_PATH, METRICS_PATH],
          getPrefixes: [CONSOLE_PATH, API_REFERENCE_PATH, GRAPHIQL_ASSETS_PATH],
          graphiqlPage: () => renderGraphiQL(GRAPHIQL_OPTIONS),
        }),
      )
      // Served without a token: before the bearer gate.
      .use(
        useApiReference(),
        useGraphiqlAssets(),
        usePublicRoutes({ documents: publicDocuments }),
        useAdminConsole({ buildDir: config.consoleDir, registration: accountDeps.registration }),
      )
      .use(
        useBearerAuth({
          ...authenticator,
          publicRoutes: [
            ...publicDocuments,
            { method: 'GET', path: READY_PATH },
            { method: 'GET', path: API_REFERENCE_PATH },
            ...restRoutes.filter((r) => r.public).map((r) => ({ method: r.method, path: fullPath(r) })),
          ],
          publicGraphqlFields: PUBLIC_ACCOUNT_FIELDS,
          graphqlEndpoint: GRAPHQL_ENDPOINT,
          logger,
        }),
      )
      .use(
        useOps({
          metrics,
          readiness,
          routing,
          fixedPaths: [GRAPHQL_ENDPOINT, ...publicDocuments.map((d) => d.path)],
          prefixPaths: [CONSOLE_PATH, API_REFERENCE_PATH, GRAPHIQL_ASSETS_PATH],
          logger,
        }),
      )
      .use(useRouteRoles({ schema, routes: restRoutes, routing }))
      .use(useIdempotencyKeys({ prisma: db.prisma, routing, logger }))
      .use(useRestEdge({ schema, routes: restRoutes, routing }))
      .use(
        useRestSofa({
          ...sofaConfig(schema, restRoutes),
          // SOFA types its handler with fets' Response; the WHATWG Response is what it returns at run time.
          errorHandler: createRestErrorHandler(logger) as unknown as NonNullable<Parameters<typeof useRestSofa>[0]['errorHandler']>,
        }),
      )
      .use(...graphqlLimitPlugins(config.graphqlLimits), useErrorPolicy())
      // The node bound before compiling (a refused document is never compiled), the expensive-slot
      // and answer-size checks around the executor compiled execution chose (ADR 0043).
      .use(bounds.count, useCompiledExecution(), bounds.run, useRevocableStreams({ liveStreams })).plugins,
  });
  return Object.assign(yoga, { liveStreams });
}
