import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { requestErrorResponse } from '../errors/request-errors';
import type { ServerContext } from '../graphql/context';
import type { StepPlugin } from '../http/plugin-chain';
import type { RouteMatching } from '../http/route-match.plugin';
import { fullPath } from '../routing/route-table';
import type { Metrics } from './metrics';
import type { Readiness } from './readiness';

export const READY_PATH = '/ready';
export const METRICS_PATH = '/metrics';

export type OpsOptions = {
  metrics: Metrics;
  readiness: () => Promise<Readiness>;
  routing: RouteMatching;
  fixedPaths: readonly string[];
  /** Trees of paths counted under one label, `<prefix>/*` (the admin console's files and routes). */
  prefixPaths?: readonly string[];
  logger: Logger;
};

/**
 * GET /ready (public) and GET /metrics (behind the bearer token, like the API), and the request
 * metrics, labelled by route template so that ids do not explode the label space.
 */
export function useOps(options: OpsOptions): StepPlugin<'route' | 'token'> {
  const fixed = new Set([...options.fixedPaths, READY_PATH, METRICS_PATH]);
  const templateOf = (serverContext: ServerContext, pathname: string): string => {
    if (fixed.has(pathname)) return pathname;
    const prefix = options.prefixPaths?.find((p) => pathname === p || pathname.startsWith(`${p}/`));
    if (prefix) return `${prefix}/*`;
    const match = options.routing.matchedRoute(serverContext);
    return match && match !== 'method-not-allowed' ? fullPath(match.route) : 'other';
  };
  const serve = async ({ url, serverContext, endResponse }: OnRequestPayload): Promise<void> => {
    if (url.pathname === READY_PATH) {
      const state = await options.readiness();
      endResponse(
        Response.json({ status: state.ready ? 'ready' : 'not ready', checks: state.checks }, { status: state.ready ? 200 : 503 }),
      );
      return;
    }
    try {
      const text = await options.metrics.registry.metrics();
      endResponse(new Response(text, { headers: { 'content-type': options.metrics.registry.contentType } }));
    } catch (error) {
      // The queue gauges read the database: an outage answers 503 JSON like any route.
      endResponse(requestErrorResponse(error, serverContext.requestId, options.logger, 'metrics'));
    }
  };
  return {
    onRequest(payload) {
      const { request, url } = payload;
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      // Every other request goes on at once instead of through a promise.
      if (url.pathname === READY_PATH || url.pathname === METRICS_PATH) return serve(payload);
      return undefined;
    },
    onResponse({ request, response, serverContext }) {
      const pathname = serverContext.pathname ?? new URL(request.url).pathname;
      const seconds = serverContext.startedAt ? (performance.now() - serverContext.startedAt) / 1000 : 0;
      options.metrics.observeRequest(templateOf(serverContext, pathname), request.method, response.status, seconds);
    },
  };
}

type OnRequestPayload = Parameters<NonNullable<Plugin<object, ServerContext>['onRequest']>>[0];
