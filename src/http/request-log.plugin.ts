import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { ServerContext } from '../graphql/context';
import { GRAPHQL_ENDPOINT } from './endpoints';

const REQUEST_ID_HEADER = 'x-request-id';
/** What a client's X-Request-Id must look like to be used (and logged) as it is. */
export const SAFE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives every request an id (the caller's X-Request-Id when sane), returns it in the response,
 * adds it to JSON error bodies so a support ticket can quote it, and logs one line per request.
 */
export function useRequestLog(logger: Logger): Plugin<object, ServerContext> {
  return {
    onRequest({ request, serverContext }) {
      const given = request.headers.get(REQUEST_ID_HEADER);
      serverContext.requestId = given && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
      serverContext.startedAt = performance.now();
    },
    async onResponse({ request, response, serverContext, setResponse }) {
      const requestId = serverContext.requestId ?? randomUUID();
      response.headers.set(REQUEST_ID_HEADER, requestId);
      const url = new URL(request.url);
      const status = response.status;
      if (status >= 400 && response.headers.get('content-type')?.includes('application/json') && url.pathname !== GRAPHQL_ENDPOINT) {
        const body = (await response
          .clone()
          .json()
          .catch(() => undefined)) as { error?: Record<string, unknown> } | undefined;
        if (body?.error && !body.error.requestId) {
          body.error.requestId = requestId;
          setResponse(Response.json(body, { status, headers: response.headers }));
        }
      }
      const ms = serverContext.startedAt ? Math.round((performance.now() - serverContext.startedAt) * 10) / 10 : undefined;
      const line = { requestId, method: request.method, path: url.pathname, status, ms, token: serverContext.auth?.name };
      if (status >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request');
    },
  };
}
