#!/usr/bin/env node
'use strict';
// This is the production entry point (npm start, the Docker image). Without it graphql-js runs its
// development-only checks on every value it resolves; `npm run dev` (tsx) keeps them.
process.env.NODE_ENV ??= 'production';
let cli;
try {
  cli = require('../dist/cli/main.js');
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND' && /dist[\\/]cli/.test(error.message)) {
    console.error(
      'sync-gateway is not built: in a git checkout run `npm install` with its dev dependencies (it builds dist/), ' +
        'or install a release package (`npm pack`), which ships dist/.',
    );
    process.exit(1);
  }
  throw error;
}
cli.main(process.argv);
