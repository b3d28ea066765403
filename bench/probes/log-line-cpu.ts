/**
 * CPU per request log line, measured alone: the service's own logger (src/logger.ts, JSON to
 * stdout, asynchronous, redaction on) writing the request line `useRequestLog` writes.
 *
 *   npx tsx bench/probes/log-line-cpu.ts | cat > /dev/null          # lines in bursts of 500
 *   npx tsx bench/probes/log-line-cpu.ts spaced | cat > /dev/null   # one line per event-loop turn
 *
 * stdout must be a pipe someone drains (as when the service runs under a supervisor); the result
 * goes to stderr.
 */
import { createLogger } from '../../src/logger';

const LINES = 200_000;
const perTurn = process.argv[2] === 'spaced' ? 1 : 500;
const logger = createLogger({ logLevel: 'info', logFormat: 'json' });
const line = {
  requestId: 'a3c1f2e4-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
  method: 'GET',
  path: '/api/v1/updated-products',
  status: 200,
  ms: 12.3,
  token: 'bench-1a2b3c',
};
const start = process.cpuUsage();
let written = 0;
const burst = () => {
  for (let i = 0; i < perTurn && written < LINES; i++, written++) logger.info(line, 'request');
  if (written < LINES) setImmediate(burst);
  else
    logger.flush(() => {
      const used = process.cpuUsage(start);
      process.stderr.write(`${((used.user + used.system) / LINES).toFixed(2)} µs CPU per line (${perTurn} per turn)\n`);
    });
};
burst();
