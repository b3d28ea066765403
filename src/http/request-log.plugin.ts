import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { ServerContext } from '../graphql/context';
import { GRAPHQL_ENDPOINT } from './endpoints';
import { REQUEST_ID_HEADER, SAFE_REQUEST_ID } from './request-id';

export type RequestLogOptions = { logger: Logger };

/**
 * Gives every request an id (the caller's X-Request-Id when sane), returns it in the response,
 * adds it to JSON error bodies so a support ticket can quote it, and logs one line per request.
 */
export function useRequestLog({ logger }: RequestLogOptions): Plugin<object, ServerContext> {
  return {
    onRequest({ request, url, serverContext }) {
      const given = request.headers.get(REQUEST_ID_HEADER);
      serverContext.requestId = given && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
      serverContext.startedAt = performance.now();
      serverContext.pathname = url.pathname;
    },
    onResponse({ request, response, serverContext, setResponse }) {
      const requestId = serverContext.requestId ?? randomUUID();
      response.headers.set(REQUEST_ID_HEADER, requestId);
      const pathname = serverContext.pathname ?? new URL(request.url).pathname;
      const status = response.status;
      const line = () => {
        const ms = serverContext.startedAt ? Math.round((performance.now() - serverContext.startedAt) * 10) / 10 : undefined;
        return { requestId, method: request.method, path: pathname, status, ms, token: serverContext.auth?.name };
      };
      if (status >= 400 && response.headers.get('content-type')?.includes('application/json') && pathname !== GRAPHQL_ENDPOINT) {
        return withRequestId(response, requestId, setResponse).then(() => log(logger, status, line));
      }
      log(logger, status, line);
      return undefined;
    },
  };
}

/** One line per request; the line is only built when its level is on. */
function log(logger: Logger, status: number, line: () => Record<string, unknown>): void {
  if (status >= 500) logger.error(line(), 'request failed');
  else if (logger.isLevelEnabled('info')) logger.info(line(), 'request');
}

/** JSON error bodies carry the request id, so that a support ticket can quote it. */
async function withRequestId(response: Response, requestId: string, setResponse: (response: Response) => void): Promise<void> {
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { error?: Record<string, unknown> } | undefined;
  if (body?.error && !body.error.requestId) {
    body.error.requestId = requestId;
    setResponse(Response.json(body, { status: response.status, headers: response.headers }));
  }
}
