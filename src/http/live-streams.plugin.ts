import { GraphQLError, type ExecutionResult } from 'graphql';
import { Repeater, type Plugin } from 'graphql-yoga';
import type { LiveStreams } from '../auth/live-streams';
import type { AuthInfo } from '../auth/token.service';

/** Set in the context of operations that arrive over graphql-ws: that transport closes the whole socket instead. */
export const GRAPHQL_WS_CONTEXT_FLAG = 'viaGraphqlWs';

const revokedResult = (): ExecutionResult => ({
  errors: [new GraphQLError('The token or session of this subscription was revoked', { extensions: { code: 'UNAUTHENTICATED' } })],
});

export type RevocableStreamsOptions = { liveStreams: LiveStreams };

/**
 * Ends a subscription's stream over HTTP (SSE, multipart) when its credential is revoked: one last
 * result with an UNAUTHENTICATED error, then the stream completes.
 */
export function useRevocableStreams({ liveStreams }: RevocableStreamsOptions): Plugin {
  return {
    onSubscribe({ args }) {
      const context = args.contextValue as { auth?: AuthInfo | null | undefined; [GRAPHQL_WS_CONTEXT_FLAG]?: boolean };
      const auth = context.auth;
      if (!auth || context[GRAPHQL_WS_CONTEXT_FLAG]) return;
      return {
        onSubscribeResult({ result, setResult }) {
          if (!(Symbol.asyncIterator in result)) return;
          setResult(endWhenRevoked(result, (end) => liveStreams.track(auth, end)));
        },
      };
    },
  };
}

function endWhenRevoked(
  source: AsyncIterable<ExecutionResult>,
  track: (end: () => void) => () => void,
): AsyncIterableIterator<ExecutionResult> {
  return new Repeater<ExecutionResult>(async (push, stop) => {
    const iterator = source[Symbol.asyncIterator]();
    const untrack = track(() => {
      void push(revokedResult());
      stop();
    });
    const stopped = stop.then(() => ({ done: true as const, value: undefined }));
    try {
      for (;;) {
        const next = await Promise.race([iterator.next(), stopped]);
        if (next.done) break;
        await push(next.value);
      }
    } finally {
      untrack();
      stop();
      await iterator.return?.();
    }
  });
}
