'use strict';
/**
 * Ends every `npm test` run with one line saying which tests did not run and what they need, so
 * that nothing is skipped silently. Tests that need PostgreSQL or Redis are skipped (or their
 * PostgreSQL variant is not declared) unless TEST_DATABASE_URL / TEST_REDIS_URL are set; the
 * browser tests need Chromium (CHROMIUM_PATH). See docs/development.md, "Running the tests".
 */
const path = require('node:path');

class SkipSummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const perFile = [];
    let skipped = 0;
    for (const file of results.testResults) {
      const count = file.testResults.filter((t) => t.status === 'pending' || t.status === 'skipped' || t.status === 'todo').length;
      if (count === 0) continue;
      skipped += count;
      perFile.push(`${path.relative(this.rootDir, file.testFilePath).replace(/^test\//, '')} ${count}`);
    }
    const missing = [
      process.env.TEST_DATABASE_URL
        ? undefined
        : 'PostgreSQL (TEST_DATABASE_URL; the PostgreSQL variants of the two-backend tests did not run either)',
      process.env.TEST_REDIS_URL ? undefined : 'Redis (TEST_REDIS_URL)',
    ].filter(Boolean);
    if (skipped === 0 && missing.length === 0) return;
    const what = skipped === 0 ? 'no test skipped' : `${skipped} test${skipped === 1 ? '' : 's'} skipped (${perFile.join(', ')})`;
    const why =
      missing.length > 0
        ? `not set up: ${missing.join(', ')}`
        : 'all of PostgreSQL and Redis were set up: see each test for what it needs (Chromium, strace)';
    process.stderr.write(`\nsync-gateway tests: ${what}; ${why}. See docs/development.md, "Running the tests".\n`);
  }
}

module.exports = SkipSummaryReporter;
