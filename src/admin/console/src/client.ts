import { cacheExchange, Client, fetchExchange, mapExchange, subscriptionExchange } from '@urql/core';
import { createClient as createSseClient } from 'graphql-sse';
import { currentSession, setSession } from './session';

const GRAPHQL_URL = '/graphql';

function authHeaders(): Record<string, string> {
  const session = currentSession();
  return session ? { authorization: `Bearer ${session.token}` } : {};
}

// Subscriptions over SSE (GraphQL over SSE, distinct connections: what Yoga serves at /graphql).
const sse = createSseClient({ url: GRAPHQL_URL, headers: authHeaders, retryAttempts: Infinity });

/** urql with the session's token on every request; an expired or revoked session signs out. */
export function createGraphqlClient(): Client {
  return new Client({
    url: GRAPHQL_URL,
    fetchOptions: () => ({ headers: authHeaders() }),
    // Dashboards show what is in the database now, not what a cache remembers.
    requestPolicy: 'network-only',
    exchanges: [
      mapExchange({
        onError(error) {
          const unauthenticated =
            error.response?.status === 401 || error.graphQLErrors.some((e) => e.extensions?.['code'] === 'UNAUTHENTICATED');
          if (unauthenticated && currentSession()) setSession(null);
        },
      }),
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: sse.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
}
