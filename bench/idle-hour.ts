/**
 * How often a quiet embedded store recycles PGlite over a long idle stretch (ADR 0039; not part
 * of `npm run bench`): the service as `npm start` runs it on a fresh data directory, one push of
 * IDLE_PRODUCTS products (the work before the quiet), then a webshop polling the product list
 * every IDLE_POLL_SECONDS for IDLE_MINUTES, the RSS sampled every 30 s. Prints each recycle the
 * service logged (when, why, its pause) and the RSS range, as JSON lines.
 *
 *   IDLE_MINUTES=60 npx tsx bench/idle-hour.ts
 */
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { api, startService } from './lib/service';

const MINUTES = Number(process.env.IDLE_MINUTES ?? 60);
const POLL_SECONDS = Number(process.env.IDLE_POLL_SECONDS ?? 5);
const PRODUCTS = Number(process.env.IDLE_PRODUCTS ?? 10_000);
const MB = 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const logFile = path.join(tmpdir(), `sgw-idle-hour-${process.pid}.log`);
  process.env.BENCH_SERVICE_LOG = logFile;
  const service = await startService({ backend: 'pglite' });
  const started = Date.now();
  const minute = () => Number(((Date.now() - started) / 60_000).toFixed(2));
  const rss: Array<{ minute: number; rssMb: number }> = [];
  try {
    for (let from = 0; from < PRODUCTS; from += 1_000) {
      const products = Array.from({ length: Math.min(1_000, PRODUCTS - from) }, (_, k) => ({
        external_id: `IDLE-${from + k}`,
        name: `Idle product ${from + k}`,
        price: 10,
      }));
      await api(service, 'POST', '/api/v1/products', { products });
    }
    const until = started + MINUTES * 60_000;
    let nextSample = 0;
    while (Date.now() < until) {
      await api(service, 'GET', '/api/v1/updated-products?limit=50');
      if (Date.now() >= nextSample) {
        rss.push({ minute: minute(), rssMb: Math.round(service.rss() / MB) });
        nextSample = Date.now() + 30_000;
      }
      await sleep(POLL_SECONDS * 1_000);
    }
  } finally {
    await service.stop();
  }
  const recycles = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes('recycled the embedded store'))
    .map((line) => JSON.parse(line) as { time: number; msg: string; pauseMs?: number });
  rmSync(logFile, { force: true });
  for (const r of recycles)
    console.log(JSON.stringify({ minute: Number(((r.time - started) / 60_000).toFixed(2)), msg: r.msg, pauseMs: r.pauseMs }));
  for (const sample of rss) console.log(JSON.stringify(sample));
  const values = rss.map((s) => s.rssMb);
  console.log(
    JSON.stringify({ minutes: MINUTES, recycles: recycles.length, rssMinMb: Math.min(...values), rssMaxMb: Math.max(...values) }),
  );
}

void main();
