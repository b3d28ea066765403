import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { PrismaClient } from '../generated/prisma/client';
import type { YogaServerInstance } from 'graphql-yoga';
import type { LiveStreams } from '../auth/live-streams';
import type { RequestContext, ServerContext } from '../graphql/context';
import { bearerToken, verifyBearer } from './authenticate';
import type { AuthInfo } from '../auth/token.service';
import { databaseOutage } from '../errors/database-errors';
import { GRAPHQL_WS_CONTEXT_FLAG } from './live-streams.plugin';

type Extra = { auth?: AuthInfo; requestId?: string; untrack?: () => void };

/** graphql-ws's Forbidden: clients treat it as final and do not reconnect with the same credentials. */
const CLOSE_FORBIDDEN = 4403;

/** What graphql-ws uses of the app (src/app.ts): its endpoint, its envelope, its live streams. */
export type GraphqlWsApp = Pick<YogaServerInstance<ServerContext, RequestContext>, 'graphqlEndpoint' | 'getEnveloped'> & {
  liveStreams: LiveStreams;
};

/**
 * graphql-ws on the HTTP server's /graphql, through Yoga's envelope so that context, plugins and
 * error policy are those of HTTP requests. The bearer token (an API token or an admin session)
 * comes in connectionParams.authorization (`Bearer <token>` or the bare token); when it is revoked the socket is closed with 4403.
 */
export function attachGraphqlWs(
  server: Server,
  app: GraphqlWsApp,
  options: { prisma: PrismaClient; lastUsedResolutionMs: number },
): { close(): Promise<void> } {
  const wss = new WebSocketServer({ server, path: app.graphqlEndpoint });
  const disposable = useServer<Record<string, unknown>, Extra>(
    {
      async onConnect(ctx) {
        // Browsers cannot set headers on a WebSocket: the token comes as a connection parameter,
        // with or without the `Bearer ` of the HTTP header.
        const header = String(ctx.connectionParams?.authorization ?? '');
        // With or without `Bearer `: the README once told clients to send the bare token.
        const token = bearerToken(header) ?? /^\s*(\S+)\s*$/.exec(header)?.[1];
        let auth: AuthInfo | null;
        try {
          auth = token ? await verifyBearer(options, token) : null;
        } catch (error) {
          // graphql-ws would close with the error's message (host and all); 1013 is "try again later".
          if (!databaseOutage(error)) throw error;
          (ctx.extra as { socket?: { close(code: number, reason: string): void } }).socket?.close(1013, 'Service unavailable: retry later');
          return false;
        }
        if (!auth) return false; // closes with 4403 Forbidden
        ctx.extra.auth = auth;
        ctx.extra.requestId = randomUUID();
        const { socket } = ctx.extra;
        if (socket.readyState !== socket.OPEN) return false; // gone while we verified: nothing to track
        ctx.extra.untrack = app.liveStreams.track(auth, () => socket.close(CLOSE_FORBIDDEN, 'Forbidden: the token or session was revoked'));
        return true;
      },
      onClose(ctx) {
        ctx.extra.untrack?.();
      },
      execute: (args) => (args.rootValue as { execute(a: ExecutionArgs): unknown }).execute(args) as never,
      subscribe: (args) => (args.rootValue as { subscribe(a: ExecutionArgs): unknown }).subscribe(args) as never,
      async onSubscribe(ctx, _id, payload) {
        const { schema, execute, subscribe, contextFactory, parse, validate } = app.getEnveloped({
          ...ctx,
          auth: ctx.extra.auth,
          requestId: ctx.extra.requestId,
          params: payload,
          [GRAPHQL_WS_CONTEXT_FLAG]: true,
        });
        const document = parse(payload.query);
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
        return {
          schema,
          document,
          operationName: payload.operationName ?? null,
          variableValues: payload.variables ?? {},
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
      },
    },
    wss,
  );
  return {
    async close() {
      await disposable.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
