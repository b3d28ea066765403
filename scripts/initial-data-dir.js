'use strict';
// Run by `npm run build` after tsc: the pre-initialised data directory of the embedded store
// (dist/pglite-initial, docs/adr/0041), made by the installed PGlite's initdb, so that a first
// start never runs initdb itself. Kept when the one there was made by the same PGlite version.
const path = require('node:path');
const { INITIAL_DATA_DIR, writeInitialDataDir } = require('../dist/db/initial-data-dir.js');

const started = Date.now();
writeInitialDataDir().then(
  (wrote) => {
    const where = path.relative(process.cwd(), INITIAL_DATA_DIR) || INITIAL_DATA_DIR;
    if (wrote) console.log(`sync-gateway: made ${where} with PGlite's initdb in ${Date.now() - started} ms`);
    // PGlite instances keep handles open: nothing else is left to do.
    process.exit(0);
  },
  (error) => {
    console.error('sync-gateway: could not make the pre-initialised data directory', error);
    process.exit(1);
  },
);
