'use strict';
/**
 * Memory probe for the embedded server (issue 20's RSS growth): preloaded into the service with
 *   BENCH_NODE_ARGS="--require ./bench/lib/memory-probe.cjs" MEMORY_PROBE_OUT=/tmp/probe.jsonl \
 *     BENCH_ONLY=soak SOAK_MINUTES=5 npm run bench
 * it appends one JSON line every MEMORY_PROBE_MS (default 5,000) with what makes up the RSS:
 * process.memoryUsage() (V8 heap, external, array buffers), PGlite's WebAssembly memory (its size
 * and how much of it is resident, from /proc/self/smaps), and every MEMORY_PROBE_CONTEXTS_EVERY
 * samples (default 6) the total of Postgres's own memory contexts (pg_backend_memory_contexts).
 * It also writes a line each time a protocol message makes the WebAssembly memory grow (which
 * statement needed it). Diagnostics only: never loaded by `npm start`.
 */
const { Buffer } = require('node:buffer');
const fs = require('node:fs');
const { createRequire } = require('node:module');
const { setInterval } = require('node:timers');

const MB = 1024 * 1024;
const out = process.env.MEMORY_PROBE_OUT || 'memory-probe.jsonl';
const periodMs = Number(process.env.MEMORY_PROBE_MS || 5_000);
const contextsEvery = Number(process.env.MEMORY_PROBE_CONTEXTS_EVERY || 6);
const started = Date.now();
const seconds = () => (Date.now() - started) / 1000;
const write = (record) => fs.appendFileSync(out, `${JSON.stringify(record)}\n`);

// The service's own copy of PGlite (resolved from the working directory, as the service is started there).
const { PGlite } = createRequire(`${process.cwd()}/package.json`)('@electric-sql/pglite');
let pglite;
const create = PGlite.create;
PGlite.create = async (...args) => (pglite = await create.apply(PGlite, args));

/** Resident MB of the WebAssembly memory: the anonymous read-write mapping exactly its size. */
function wasmResidentMb(bytes) {
  let inWasm = false;
  let resident = 0;
  for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) (\S+)/.exec(line);
    if (range) {
      inWasm = parseInt(range[2], 16) - parseInt(range[1], 16) === bytes && range[3] === 'rw-p';
      continue;
    }
    if (inWasm && line.startsWith('Rss:')) resident = Math.max(resident, Number(line.split(/\s+/)[1]) / 1024);
  }
  return resident;
}

// The lowest level every query and exec goes through (execProtocolRaw calls it).
const execProtocolRawSync = PGlite.prototype.execProtocolRawSync;
PGlite.prototype.execProtocolRawSync = function (message, ...rest) {
  const before = this.Module.HEAP8.length;
  const result = execProtocolRawSync.call(this, message, ...rest);
  if (this.Module.HEAP8.length !== before) {
    const text = Buffer.from(message.subarray(0, 200))
      .toString('latin1')
      .replace(/[^\x20-\x7e]+/g, ' ');
    write({ t: seconds(), wasmGrewMb: [before / MB, this.Module.HEAP8.length / MB], messageBytes: message.length, text });
  }
  return result;
};

let samples = 0;
setInterval(async () => {
  samples++;
  const usage = process.memoryUsage();
  const wasmBytes = pglite?.Module.HEAP8.length;
  const record = {
    t: seconds(),
    rssMb: usage.rss / MB,
    heapTotalMb: usage.heapTotal / MB,
    heapUsedMb: usage.heapUsed / MB,
    externalMb: usage.external / MB,
    arrayBuffersMb: usage.arrayBuffers / MB,
    wasmMb: wasmBytes === undefined ? null : wasmBytes / MB,
    wasmResidentMb: wasmBytes === undefined ? null : wasmResidentMb(wasmBytes),
  };
  if (pglite && samples % contextsEvery === 0) {
    // Queued behind the service's statements like any other query.
    const { rows } = await pglite.query('SELECT sum(total_bytes)::bigint AS total, count(*)::int AS n FROM pg_backend_memory_contexts');
    record.pgContextsMb = Number(rows[0].total) / MB;
    record.pgContexts = rows[0].n;
  }
  write(record);
}, periodMs).unref();
