#!/usr/bin/env node
'use strict';
// This is the production entry point (npm start, the Docker image). Without it graphql-js runs its
// development-only checks on every value it resolves; `npm run dev` (tsx) keeps them.
process.env.NODE_ENV ??= 'production';
const { existsSync } = require('node:fs');
const path = require('node:path');
// One file (scripts/bundle.js): the compiled modules of dist/ and their packages, joined.
const entry = path.join(__dirname, '..', 'dist', 'bundle', 'main.js');
if (!existsSync(entry)) {
  console.error(
    'sync-gateway is not built: in a git checkout run `npm install` with its dev dependencies (it builds dist/), ' +
      'or install a release package (`npm pack`), which ships dist/.',
  );
  process.exit(1);
}
require(entry).main(process.argv);
