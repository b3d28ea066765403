/** Where GraphQL (HTTP, SSE and graphql-ws) is served. */
export const GRAPHQL_ENDPOINT = '/graphql';
