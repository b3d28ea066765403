import type { Plugin } from 'graphql-yoga';
import { AppError, errorResponse, errorStatus } from '../errors/app-error';
import type { ServerContext } from '../graphql/context';
import { readBodyText } from './request-body';
import { API_BASE } from '../routing/route-table';
import { scanJson } from '../pacing/json-body';
import type { StepPlugin } from './plugin-chain';

/** Deeper JSON is refused: no payload of this API nests this far, and deep nesting overflows stacks. */
export const MAX_JSON_DEPTH = 64;

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);

type OnRequestPayload = Parameters<NonNullable<Plugin<object, ServerContext>['onRequest']>>[0];

export type BodyLimitsOptions = { maxBytes: number; graphqlEndpoint: string };

/**
 * Reads every request body once, before anything else touches it: at most `maxBytes` (413),
 * valid UTF-8 and JSON nested at most MAX_JSON_DEPTH deep (400). Later plugins read
 * `serverContext.bodyText`. Outside /api the request is replaced by one carrying the same text
 * (Yoga reads /graphql's body itself); under /api the REST edge builds the one request SOFA reads.
 */
export function useBodyLimits(options: BodyLimitsOptions): StepPlugin<never, 'body'> {
  const readBody = async ({ request, url, serverContext, setRequest, endResponse, fetchAPI }: OnRequestPayload): Promise<void> => {
    try {
      const text = await readBodyText(request, options.maxBytes);
      // One pass in slices (a 10 MB body would hold the event loop ~20 ms): the depth, and where a
      // long list's elements are, so that the REST edge can parse it piece by piece (ADR 0046).
      const shape = await scanJson(text);
      if (shape.depth > MAX_JSON_DEPTH) {
        throw new AppError('VALIDATION_FAILED', `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep`, [
          { field: '(body)', message: `At most ${MAX_JSON_DEPTH} levels of nesting` },
        ]);
      }
      serverContext.bodyText = text;
      serverContext.bodyShape = shape;
      if (url.pathname.startsWith(`${API_BASE}/`)) return;
      const headers = new fetchAPI.Headers(request.headers);
      headers.delete('content-length');
      setRequest(new fetchAPI.Request(request.url, { method: request.method, headers, body: text }));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      endResponse(
        url.pathname === options.graphqlEndpoint
          ? Response.json(
              {
                errors: [
                  { message: error.message, extensions: { code: error.code, ...(error.details ? { details: error.details } : {}) } },
                ],
              },
              { status: errorStatus[error.code] },
            )
          : errorResponse(error.code, error.message, error.details, serverContext.requestId),
      );
    }
  };
  return {
    onRequest(payload) {
      // A GET (every poll) goes on at once instead of through a promise.
      if (BODYLESS.has(payload.request.method)) return;
      return readBody(payload);
    },
  };
}
