/**
 * `npm run bench:poll` (first scenario of issue 6): GET /api/v1/updated-products?limit=50 from
 * 64 connections, against the service started as a user would (`node bin/sync-gateway.js serve`
 * on PostgreSQL) and against the raw baseline: a minimal node:http handler over pg doing the same
 * work (page, total, remembering the listed revisions) and serving the same JSON. Several rounds,
 * medians. Writes bench/poll-results.json. Not part of `npm test`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client, Pool } from 'pg';

const BASE = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PRODUCTS = 10_000;
const ROOT = path.join(__dirname, '..');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function startService(databaseUrl: string): Promise<{ url: string; token: string; child: ChildProcess }> {
  const env = { ...process.env, DATABASE_URL: databaseUrl, ENCRYPTION_KEY: randomBytes(32).toString('hex'), PORT: '0', LOG_LEVEL: 'warn', RATE_LIMIT_READ_PER_MINUTE: '100000000', RATE_LIMIT_WRITE_PER_MINUTE: '100000000' };
  const cli = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      const c = spawn(process.execPath, [path.join(ROOT, 'bin', 'sync-gateway.js'), ...args], { env });
      let out = '';
      c.stdout.on('data', (d) => (out += d));
      c.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited ${code}`))));
    });
  const token = (await cli(['token', 'create', '--name', 'bench'])).trim().split('\n').pop()!;
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'sync-gateway.js'), 'serve'], { env: { ...env, LOG_LEVEL: 'info' } });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"sync-gateway listening"'));
      if (line) resolve(JSON.parse(line).url);
    });
    child.on('close', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
  // Drain the request log (a full pipe would block the service); logging stays on, as in production.
  child.stdout!.resume();
  return { url, token, child };
}

/** The same work done by the shortest correct code. */
async function startBaseline(databaseUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  const server = createServer(async (_req, res) => {
    try {
      const [page, total] = await Promise.all([
        pool.query(
          `SELECT id, external_id, erp_id, is_new, changed_fields, context, data, updated_at, revision
             FROM products WHERE pending ORDER BY updated_at, id LIMIT 50`,
        ),
        pool.query('SELECT count(*)::int AS n FROM products WHERE pending'),
      ]);
      await pool.query(
        `UPDATE products AS t SET listed_revision = v.revision FROM jsonb_to_recordset($1::jsonb) AS v(id int, revision int)
          WHERE t.id = v.id AND (t.listed_revision IS NULL OR t.listed_revision < v.revision)`,
        [JSON.stringify(page.rows.map((r) => ({ id: r.id, revision: r.revision })))],
      );
      const payload = page.rows.map((r) => ({
        id: r.id,
        externalId: r.external_id,
        erpId: r.erp_id,
        isNew: r.is_new,
        changedFields: r.changed_fields,
        context: r.context,
        data: r.data,
        updatedAt: r.updated_at.toISOString(),
      }));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ payload, meta: { total: total.rows[0].n, limit: 50, offset: 0 } }));
    } catch {
      // A request still in flight when the run ends may find the pool closed.
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}

async function load(url: string, token?: string) {
  const r = await autocannon({
    url: `${url}/api/v1/updated-products?limit=50`,
    connections: 64,
    duration: DURATION_S,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  if (r.non2xx > 0) throw new Error(`${r.non2xx} non-2xx answers from ${url}`);
  return { reqPerSec: r.requests.average, p99Ms: r.latency.p99 };
}

async function main(): Promise<void> {
  const dbName = `sgw_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: BASE });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(BASE);
  url.pathname = `/${dbName}`;
  const service = await startService(url.toString());
  const baseline = await startBaseline(url.toString());
  try {
    for (let i = 0; i < PRODUCTS; i += 1000) {
      const products = Array.from({ length: 1000 }, (_, j) => ({ external_id: `B-${i + j}`, name: `Product ${i + j}`, price: (i + j) % 100 }));
      const res = await fetch(`${service.url}/api/v1/products`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ products }),
      });
      if (!res.ok) throw new Error(`seeding failed: ${res.status}`);
    }
    const rounds: Array<{ service: Awaited<ReturnType<typeof load>>; raw: Awaited<ReturnType<typeof load>> }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      rounds.push({ service: await load(service.url, service.token), raw: await load(baseline.url) });
    }
    const serviceRps = median(rounds.map((r) => r.service.reqPerSec));
    const rawRps = median(rounds.map((r) => r.raw.reqPerSec));
    const p99 = median(rounds.map((r) => r.service.p99Ms));
    const results = [
      { scenario: 'poll', metric: 'req/s', value: Math.round(serviceRps), baseline: Math.round(rawRps), ratio: +(serviceRps / rawRps).toFixed(3), target: 0.5, pass: serviceRps / rawRps >= 0.5 },
      { scenario: 'poll', metric: 'p99 ms', value: p99, baseline: median(rounds.map((r) => r.raw.p99Ms)), ratio: null, target: 25, pass: p99 <= 25 },
    ];
    console.table(results);
    writeFileSync(
      path.join(__dirname, 'poll-results.json'),
      `${JSON.stringify({ date: new Date().toISOString(), durationSeconds: DURATION_S, rounds: ROUNDS, connections: 64, products: PRODUCTS, results, raw: rounds }, null, 2)}\n`,
    );
  } finally {
    service.child.kill('SIGTERM');
    await baseline.close();
    await new Promise((r) => setTimeout(r, 1000));
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
