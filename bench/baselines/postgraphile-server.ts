/**
 * The PostGraphile peer (issue 18): PostGraphile 4 as an integrator would deploy it over the
 * service's PostgreSQL tables, serving the change list from bench/baselines/postgraphile.sql (a
 * plain view, and a function that also writes the listing mark). Production settings: no query
 * log, no GraphiQL, no schema watching, JSON as JSON, a pool as large as the service's (10).
 * Runs in a process of its own: `node --import tsx postgraphile-server.ts <databaseUrl>` applies
 * the SQL, builds the schema and then prints its URL (POST /graphql).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Module from 'node:module';
import { Pool } from 'pg';

/**
 * PostGraphile 4 needs graphql 15 and must see one copy of it, but npm hoists some of its
 * packages (graphile-build-pg, graphql-parse-resolve-info) next to the service's graphql 16 and
 * gives others a nested copy of 15: "Cannot use GraphQLScalarType from another module or realm".
 * This process runs nothing else, so every `graphql` import in it is sent to PostGraphile's copy.
 */
function useOneGraphql15(): void {
  const postgraphileDir = path.dirname(require.resolve('postgraphile/package.json'));
  const graphql15 = path.dirname(require.resolve('graphql/package.json', { paths: [postgraphileDir] }));
  const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const resolve = loader._resolveFilename;
  loader._resolveFilename = function (request, ...rest) {
    const redirected = request === 'graphql' || request.startsWith('graphql/') ? graphql15 + request.slice('graphql'.length) : request;
    return resolve.call(this, redirected, ...rest);
  };
}

async function main(): Promise<void> {
  useOneGraphql15();
  const { postgraphile } = await import('postgraphile');
  const pool = new Pool({ connectionString: process.argv[2], max: 10 });
  await pool.query(readFileSync(path.join(__dirname, 'postgraphile.sql'), 'utf8'));
  const middleware = postgraphile(pool, 'peer', {
    disableQueryLog: true,
    dynamicJson: true,
    setofFunctionsContainNulls: false,
    disableDefaultMutations: true,
    ignoreRBAC: false,
    legacyRelations: 'omit',
    graphiql: false,
    watchPg: false,
    retryOnInitFail: false,
    extendedErrors: [],
    showErrorStack: false,
  });
  await middleware.getGraphQLSchema();
  const server = createServer(middleware);
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
