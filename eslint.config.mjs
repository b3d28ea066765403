// @ts-check
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
