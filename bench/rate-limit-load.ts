/**
 * `npm run bench:rate-limit`: do the SPEC 8 limits hold under load? Starts the service as a user
 * would (PostgreSQL: BENCH_DATABASE_URL, default the local server; a fresh database per run), then
 * drives it from loopback with autocannon: reads, writes, and two tokens at once. Writes
 * bench/rate-limit-results.json and prints a table. Not part of `npm test`.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import pino from 'pino';
import { createToken } from '../src/auth/token.service';
import { loadConfig } from '../src/config';
import { startServer } from '../src/server';

const BASE = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);

type Scenario = { name: string; method: 'GET' | 'POST'; path: string; body?: string; tokens: string[]; limit: number };

async function main(): Promise<void> {
  const dbName = `sgw_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: BASE });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(BASE);
  url.pathname = `/${dbName}`;
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: url.toString(),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    PORT: '0',
    LOG_LEVEL: 'silent',
    WORKER_ENABLED: 'false',
    TOKEN_LAST_USED_RESOLUTION_MS: '60000',
  });
  const server = await startServer(config, pino({ level: 'silent' }));
  const tokens = await Promise.all(['bench-a', 'bench-b', 'bench-c'].map((n) => createToken(server.db.prisma, n).then((t) => t.token)));
  const results: Array<Record<string, unknown>> = [];
  try {
    const scenarios: Scenario[] = [
      {
        name: 'reads, one token',
        method: 'GET',
        path: '/api/v1/updated-products?limit=1',
        tokens: [tokens[0]!],
        limit: config.rateLimit.readPerMinute,
      },
      {
        name: 'writes, one token',
        method: 'POST',
        path: '/api/v1/updated-products/batch-delete',
        body: JSON.stringify({ ids: [1] }),
        tokens: [tokens[1]!],
        limit: config.rateLimit.writePerMinute,
      },
      {
        name: 'reads, two tokens at once',
        method: 'GET',
        path: '/api/v1/updated-products?limit=1',
        tokens: [tokens[2]!, tokens[0]!],
        limit: config.rateLimit.readPerMinute,
      },
    ];
    for (const s of scenarios) {
      const counts = await Promise.all(
        s.tokens.map((token) =>
          autocannon({
            url: `${server.url}${s.path}`,
            method: s.method,
            body: s.body,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            connections: 16,
            duration: DURATION_S,
          }).then((r) => ({ token, r })),
        ),
      );
      for (const [i, { r }] of counts.entries()) {
        const ok = r['2xx'];
        const limited = r.non2xx; // 4xx + 5xx
        const fiveHundreds = r['5xx'];
        // The first scenario used token a; in the third, token a's window is already spent.
        const expected = s.name.startsWith('reads, two') && i === 1 ? 0 : s.limit;
        results.push({
          scenario: s.name,
          token: i === 0 ? 'first' : 'second',
          requests: r.requests.total,
          accepted: ok,
          rejected429: limited - fiveHundreds,
          errors5xx: fiveHundreds,
          limitPerMinute: s.limit,
          expectedAccepted: expected,
          pass: ok === expected && fiveHundreds === 0,
          reqPerSec: Math.round(r.requests.average),
        });
      }
    }
  } finally {
    await server.close();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
  console.table(results);
  writeFileSync(
    path.join(__dirname, 'rate-limit-results.json'),
    `${JSON.stringify({ date: new Date().toISOString(), durationSeconds: DURATION_S, results }, null, 2)}\n`,
  );
  if (results.some((r) => !r.pass)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
