#!/usr/bin/env node
'use strict';
let cli;
try {
  cli = require('../dist/cli/main.js');
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND' && /dist[\\/]cli/.test(error.message)) {
    console.error('sync-gateway is not built yet: run `npm install` (or `npm run generate && npm run build`).');
    process.exit(1);
  }
  throw error;
}
cli.main(process.argv);
