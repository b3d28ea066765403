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
  // One embedded cluster for the run and a migrated template on each server (test/support/global-setup.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  maxWorkers: 2,
  // One closing line naming the tests that did not run and what they need (PostgreSQL, Redis).
  reporters: ['default', '<rootDir>/test/support/skip-summary-reporter.js'],
};
