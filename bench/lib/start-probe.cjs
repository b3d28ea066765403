'use strict';
/**
 * Where a start's time goes (issue 29's restart after kill -9): preloaded into `serve` with
 * `node --require ./bench/lib/start-probe.cjs`, START_PROBE_OUT=<file>, it appends one JSON line per
 * event, each with the wall-clock time `t` (ms since the epoch) and the thread:
 *   preload                       the probe ran (Node's own bootstrap is done)
 *   require-end                   an outermost require() that took 20 ms or more (the service's modules)
 *   exec-start / exec-end         every execFile: id, useradd, initdb, pg_ctl stop, pg_ctl start (the embedded cluster)
 *   migrations-check-start / -end the first `_prisma_migrations` statements (is the schema current?)
 *   listen-call / listening       the HTTP server's listen() and its callback
 *   worker-created / worker-online  each worker thread (the webhook worker, a migration thread)
 *   require-total                 at `listening`: ms spent in outermost require() calls on this thread so far
 * Diagnostics only: never loaded by `npm start`. It wraps child_process.execFile (and its promisified
 * form), pg's Client#query, http.Server#listen and worker_threads.Worker; the cost is a clock read per call.
 */
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const util = require('node:util');
const { isMainThread, threadId } = require('node:worker_threads');

const out = process.env.START_PROBE_OUT;
if (out) install();

function install() {
  const write = (event, fields) =>
    fs.appendFileSync(out, `${JSON.stringify({ event, t: performance.timeOrigin + performance.now(), thread: threadId, ...fields })}\n`);
  write('preload', { processStart: performance.timeOrigin, main: isMainThread });

  // Outermost require() calls: module loading, wherever in the start it happens.
  let depth = 0;
  let requireMs = 0;
  const require0 = Module.prototype.require;
  Module.prototype.require = function (id) {
    if (depth++ > 0) {
      try {
        return require0.call(this, id);
      } finally {
        depth--;
      }
    }
    const started = performance.now();
    try {
      return require0.call(this, id);
    } finally {
      depth--;
      const ms = performance.now() - started;
      requireMs += ms;
      if (ms >= 20) write('require-end', { what: id, ms: Math.round(ms) });
    }
  };

  // The cluster's binaries (src/db/embedded-postgres.ts runs them through promisify(execFile)).
  const cp = require('node:child_process');
  const execFile0 = cp.execFile;
  const execFileP0 = execFile0[util.promisify.custom];
  const label = (file, args) => `${path.basename(String(file))} ${Array.isArray(args) ? (args[0] ?? '') : ''}`.trim();
  cp.execFile = function (file, args, ...rest) {
    const what = label(file, args);
    write('exec-start', { what });
    const child = execFile0.call(this, file, args, ...rest);
    child.once('exit', (code) => write('exec-end', { what, code }));
    return child;
  };
  if (execFileP0) {
    cp.execFile[util.promisify.custom] = (file, args, ...rest) => {
      const what = label(file, args);
      write('exec-start', { what });
      const promise = execFileP0(file, args, ...rest);
      promise.then(
        () => write('exec-end', { what, code: 0 }),
        (error) => write('exec-end', { what, code: error && error.code }),
      );
      return promise;
    };
  }

  // pg, as the service resolves it (from beside its bin/sync-gateway.js).
  try {
    const from = process.argv[1] && path.isAbsolute(process.argv[1]) ? process.argv[1] : path.join(process.cwd(), 'package.json');
    const pg = Module.createRequire(from)('pg');
    const query0 = pg.Client.prototype.query;
    let checks = 0;
    pg.Client.prototype.query = function (config, ...rest) {
      const text = typeof config === 'string' ? config : config && config.text;
      if (checks < 2 && typeof text === 'string' && text.includes('_prisma_migrations')) {
        const n = ++checks;
        if (n === 1) write('migrations-check-start', {});
        if (n !== 2) return query0.call(this, config, ...rest);
        // pg.Pool#query passes a callback; a client's own query returns a promise.
        const last = rest.length > 0 && typeof rest[rest.length - 1] === 'function' ? rest.length - 1 : -1;
        if (last >= 0) {
          const callback = rest[last];
          rest[last] = function (...args) {
            write('migrations-check-end', {});
            return callback.apply(this, args);
          };
          return query0.call(this, config, ...rest);
        }
        const result = query0.call(this, config, ...rest);
        if (result && typeof result.then === 'function')
          result.then(
            () => write('migrations-check-end', {}),
            () => write('migrations-check-end', { failed: true }),
          );
        return result;
      }
      return query0.call(this, config, ...rest);
    };
  } catch {
    // No pg beside the working directory: no migration-check events.
  }

  const http = require('node:http');
  const listen0 = http.Server.prototype.listen;
  http.Server.prototype.listen = function (...args) {
    write('listen-call', {});
    this.once('listening', () => write('listening', { requireMs: Math.round(requireMs) }));
    return listen0.apply(this, args);
  };

  const wt = require('node:worker_threads');
  const Worker0 = wt.Worker;
  wt.Worker = class extends Worker0 {
    constructor(file, options) {
      super(file, options);
      const name = path.basename(String(file));
      write('worker-created', { name });
      this.once('online', () => write('worker-online', { name }));
    }
  };

  process.once('exit', () => write('exit', { requireMs: Math.round(requireMs) }));
}
