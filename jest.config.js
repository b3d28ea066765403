/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // The wasm schema engine's glue is an ES module; jest needs it as CommonJS.
  transformIgnorePatterns: ['/node_modules/(?!@prisma/schema-engine-wasm/)'],
  // Generous: CI runs two heavy suites side by side on two cores.
  testTimeout: 120_000,
  // Each test file opens its own embedded Postgres (~300 MB); two at a time fit two cores.
  maxWorkers: 2,
  // A worker that has run a few files holds 600 MB and more (PGlite's memory), and the process
  // takes that long to tear down once its loop is empty: 0.3-0.45 s after the end message on an
  // idle VM for 600 MB, more under load, past jest's default 500 ms, after which jest kills it and
  // warns of a leak ("A worker process has failed to exit gracefully"). None is left at the end
  // (no ref'd handle; `beforeExit` fires at once), so the grace is longer; a real leak still shows.
  workerGracefulExitTimeout: 5_000,
  // One closing line naming the tests that did not run and what they need (PostgreSQL, Redis).
  reporters: ['default', '<rootDir>/test/support/skip-summary-reporter.js'],
};
