// @ts-check
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** Where domain code may not reach: the HTTP edges (graphql/, rest/, http/). */
const EDGE_IMPORTS = {
  patterns: [
    {
      group: ['**/graphql/*', '**/rest/*', '**/http/*'],
      message: 'Domain code does not import the edges: put the type beside the domain and let the edge import it.',
    },
  ],
};

const SRC = path.join(import.meta.dirname, 'src');

/**
 * Folders whose every module is there to be imported (ADR 0048, "Domain public faces"): the ground floor
 * and the kernels below the domains, and the edges above them. Which folder may import them is the
 * layering's business (test/import-graph.test.ts) and the edge rule's (EDGE_IMPORTS), not a face's.
 */
const OPEN_FOLDERS = [
  'config',
  'db',
  'errors',
  'generated',
  'graphql',
  'http',
  'idempotency',
  'pacing',
  'rate-limits',
  'redis',
  'rest',
  'routing',
  'validation',
];

/** Every other folder of src/ is a domain. Another folder imports its files of these roles, by name… */
const PUBLIC_ROLES = ['entity', 'input', 'operations', 'plugin', 'routes', 'schema', 'service'];

/**
 * …and the files listed here, each with why. The rest of a domain's files are its own.
 * @type {Record<string, Record<string, string>>}
 */
const PUBLIC_FILES = {
  accounts: { 'mailer.ts': 'the server makes the mailer from the SMTP settings' },
  auth: {
    'roles.ts': 'the roles and grants the edges, the CLI and a few domains check',
    'token-cache.ts': 'the app makes it; the GraphQL context and authentication read it',
    'live-streams.ts': 'the app makes it; graphql-ws and the SSE plugin register the streams revocations end',
    'revocation-notices.ts': 'the server listens for them, a CLI operation announces one',
  },
  backups: {
    'backup.ts': 'the store operations the CLI and the server run',
    'restore.ts': 'the store operations the CLI and the server run',
    'export-to-postgres.ts': 'the store operations the CLI and the server run',
    'pglite-import.ts': 'the store operations the CLI and the server run',
  },
  changes: {
    // The ledger every tracked entity builds on (ADR 0036): its kernel is its API.
    'ledger.ts': 'acknowledgements and the feed a reader lists',
    'page.ts': 'pages of every list and their limits',
    'results.ts': 'the shapes a sync and a page answer with',
    'upsert.ts': 'the upsert a push runs, in its transaction',
    'source-time.ts': "source_updated_at's input and stale check (ADR 0027)",
    'tracked-entities.ts': 'the tracked tables: an entity spreads its entry, others go through them all',
    'tracked-entity.ts': 'the descriptor an entity satisfies',
    'tracked-fields.ts': 'the GraphQL fields every tracked record shares',
    'channel-view.ts': 'a record as a channel other than default sees it (ADR 0045)',
    'channel-ledger.ts': "a channel's acknowledgements, and the mark of a row read on a channel",
    'change-clock.ts': "the clock a write takes its rows' updated_at from",
    'history-writes.ts': 'who pushed, and which entities keep a history (ADR 0031)',
    'pending-counts.ts': 'the metrics read the counts, the server compacts them (ADR 0030)',
    'pending-records.ts': "a channel's pending records, as the console's Pending page reads them",
    'previous-values.ts': "`previous` without the schema builder, for the worker's thread (ADR 0047)",
    'resync.ts': 'the replay reconciliation and resync run (ADR 0029)',
    'sql/sql.ts': 'the tagged sql template and the quoting every ledger statement is written with',
    'sql/fragments.ts': "the ledger's shared fragments (pending state, cursors, counts, history)",
    'sql/read-channel-states.ts': "a channel's state of records read by id, beside the rows (ADR 0045)",
  },
  control: {
    'operation.ts': 'the operations the CLI runs, and their results',
    'run-operation.ts': 'the CLI runs one on a running server or alone',
  },
  deliveries: {
    'delivery.ts': "one signed attempt: the queue's worker and a webhook's test send it",
    'attempt-log.ts': 'the attempt log the queue writes and lists',
    'endpoint-health.ts': "a configuration's health: the queue records it, webhooks show it",
    'network-policy.ts': 'the SSRF guard: set at start-up (server, worker thread, CLI), webhooks check URLs',
    'secret-box.ts': 'secret encryption: made at start-up, used by webhooks, channels and the worker',
    'signing-keys.ts': "webhooks rotate a configuration's signing keys",
  },
  events: {
    'hub.ts': 'the pub/sub every publisher and subscription uses',
    'live-events.ts': "the live events' payloads",
    'pg-channel-listener.ts': "LISTEN on the store, for revocations and the queue's wake-up",
  },
  failures: { 'failure-enums.ts': 'GraphQL enums webhook configurations filter by' },
  ops: {
    'metrics.ts': 'the server makes them, the app serves them',
    'readiness.ts': 'the server makes it, the app serves it',
    'store-metrics.ts': 'the server adds the store size gauges',
  },
  queue: {
    'change-batches.ts': "a push channel's batches (ADR 0047): channels size them, the server runs them",
    'queue-notify.ts': 'wakes the worker when failures queue work',
    'worker.ts': 'the server starts the worker',
    'worker-thread.ts': "the server starts the worker's thread",
    'sql/queue-database.ts': "the server gives the worker the queue's storage",
  },
};

const DOMAINS = readdirSync(SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !OPEN_FOLDERS.includes(entry.name))
  .map((entry) => entry.name);

/** A domain's face as one glob (the rule takes only globs once `from` is one). */
function faceOf(domain) {
  const files = Object.keys(PUBLIC_FILES[domain] ?? {});
  for (const file of files) {
    if (!existsSync(path.join(SRC, domain, file)))
      throw new Error(`eslint.config.mjs: src/${domain}/${file} is declared public but is not there`);
  }
  const globs = [`**/*.@(${PUBLIC_ROLES.join('|')}).ts`, ...files];
  return path.join(SRC, domain, globs.length === 1 ? globs[0] : `{${globs.join(',')}}`);
}

/** Outside a domain's folder, only its face may be imported (issue 34). */
const DOMAIN_FACES = {
  basePath: import.meta.dirname,
  zones: DOMAINS.map((domain) => ({
    target: [`src/!(${domain})/**`, 'src/*.ts'],
    from: `src/${domain}/**`,
    except: [faceOf(domain)],
    message: `Import src/${domain}/ through its face: its *.{${PUBLIC_ROLES.join(',')}}.ts files and those eslint.config.mjs lists (ADR 0048).`,
  })),
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'build/',
      'coverage/',
      'node_modules/',
      'src/generated/',
      'src/admin/console/dist/',
      // The TypeScript client's build output, its own dependencies and its types generated from openapi.json.
      'clients/typescript/dist/',
      'clients/typescript/node_modules/',
      'clients/typescript/src/openapi.ts',
      // Generated from schema.graphql by gql.tada (`npm run schema:print`).
      'src/admin/console/src/graphql-env.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  comments.recommended,
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  // A disabled rule says why (`-- reason`).
  { rules: { '@eslint-community/eslint-comments/require-description': 'error' } },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.tsx', '.mts', '.js', '.json'] })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'import-x/no-cycle': 'error',
    },
  },
  { files: ['src/**/*.ts'], rules: { 'import-x/no-restricted-paths': ['error', DOMAIN_FACES] } },
  {
    // Domain code: services, the change ledger, the queue, deliveries, live events. Their GraphQL types (*.schema.ts) and
    // REST routes (*.routes.ts) are the edge's adapters and may import it; so may the worker thread.
    files: ['src/**/*.service.ts', 'src/changes/**/*.ts', 'src/queue/**/*.ts', 'src/deliveries/**/*.ts', 'src/events/**/*.ts'],
    ignores: ['**/*.schema.ts', '**/*.routes.ts', 'src/changes/tracked-fields.ts', 'src/queue/worker-thread.entry.ts'],
    rules: { 'no-restricted-imports': ['error', EDGE_IMPORTS] },
  },
  {
    // The CommonJS entry point and config files.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
