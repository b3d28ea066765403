/**
 * The soak of issue 20, shortened: the embedded store under the workload at SOAK_RATE
 * times its rate (default 4) for SOAK_MINUTES (default 10; 0 skips it), sampling the data
 * directory, its WAL and the service's RSS every SAMPLE_MS. Writes bench/soak.json and the plot
 * bench/soak.svg / bench/soak.png; returns the summary rows for bench/results.json.
 *
 * The workload at 1×: 20,000 products and 20,000 stocks; every 10 s a re-push of 500
 * products and 2,000 stocks with some changes; every 60 s a 5,000-product push; a webshop polling
 * and acknowledging both lists; a failure report every 2 s.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { directoryBytes } from '../../src/db/store-size';
import { infoResult, limitResult, log, type Result } from '../lib/measure';
import { renderPlot } from '../lib/plot';
import { api, type Service } from '../lib/service';

const MB = 1024 * 1024;
export const SOAK_MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RATE = Number(process.env.SOAK_RATE ?? 4);
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_MS ?? 5_000);
/** How long the service idles after the load before its RSS is read (also read at 30 s). */
const IDLE_SECONDS = Number(process.env.SOAK_IDLE_SECONDS ?? 60);
const RECORDS = 20_000;

export type SoakSample = { minute: number; dataDirMb: number; walMb: number; rssMb: number };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function productBatch(from: number, count: number, version: number) {
  return Array.from({ length: count }, (_, k) => {
    const i = (from + k) % RECORDS;
    // One in ten changes its price each time it comes round again: "some changes".
    return {
      external_id: `SOAK-${i}`,
      name: `Soak product ${i}`,
      price: 10 + (i % 10 === version % 10 ? version : 0),
      description: 'soak',
    };
  });
}

function stockBatch(from: number, count: number, version: number) {
  return Array.from({ length: count }, (_, k) => {
    const i = (from + k) % RECORDS;
    return {
      supplier_external_id: `SUP-${i % 20}`,
      product_external_id: `SOAK-${i}`,
      quantity: i % 7 === version % 7 ? version : 1,
      purchase_price: 5,
    };
  });
}

/** Runs `step` every `periodMs` until `until`, never two at once; counts what failed. */
async function every(periodMs: number, until: number, errors: string[], step: (n: number) => Promise<void>): Promise<void> {
  for (let n = 0; Date.now() < until; n++) {
    const started = Date.now();
    await step(n).catch((error: Error) => errors.push(error.message.slice(0, 200)));
    await sleep(Math.max(0, periodMs - (Date.now() - started)));
  }
}

export async function runSoak(service: Service, benchDir: string): Promise<Result[]> {
  const pgDir = path.join(service.env.DATA_DIR!, 'pglite');
  const idleStartMb = service.rss() / MB;
  log(`soak: seeding ${RECORDS} products and stocks`);
  for (let from = 0; from < RECORDS; from += 5_000)
    await api(service, 'POST', '/api/v1/products', { products: productBatch(from, 5_000, 0) });
  for (let from = 0; from < RECORDS; from += 2_000) await api(service, 'POST', '/api/v1/stocks', { stocks: stockBatch(from, 2_000, 0) });

  const started = Date.now();
  const until = started + SOAK_MINUTES * 60_000;
  const samples: SoakSample[] = [];
  const errors: string[] = [];
  let peakRss = service.rss();
  let slowestPollMs = 0;
  const peakTimer = setInterval(() => (peakRss = Math.max(peakRss, service.rss())), 250);
  const sample = async () => {
    samples.push({
      minute: (Date.now() - started) / 60_000,
      dataDirMb: (await directoryBytes(pgDir)) / MB,
      walMb: (await directoryBytes(path.join(pgDir, 'pg_wal'))) / MB,
      rssMb: service.rss() / MB,
    });
  };
  const timed = async <T>(work: () => Promise<T>) => {
    const t = performance.now();
    const result = await work();
    slowestPollMs = Math.max(slowestPollMs, performance.now() - t);
    return result;
  };
  log(`soak: ${SOAK_MINUTES} min at ${RATE}× the issue's rate`);
  await Promise.all([
    every(SAMPLE_MS, until + 1, errors, sample),
    every(10_000 / RATE, until, errors, async (n) => {
      await api(service, 'POST', '/api/v1/products', { products: productBatch(n * 500, 500, n + 1) });
      await api(service, 'POST', '/api/v1/stocks', { stocks: stockBatch(n * 2_000, 2_000, n + 1) });
    }),
    every(60_000 / RATE, until, errors, async (n) => {
      await api(service, 'POST', '/api/v1/products', { products: productBatch(n * 5_000, 5_000, n + 1) });
    }),
    every(2_000 / RATE, until, errors, async (n) => {
      await api(service, 'POST', '/api/v1/failures', {
        entity_type: 'product',
        external_id: `SOAK-${n % RECORDS}`,
        source: 'webshop',
        error_message: 'soak',
      });
    }),
    every(1_000, until, errors, async () => {
      const products = await timed(() => api<{ payload: Array<{ id: number }> }>(service, 'GET', '/api/v1/updated-products?limit=500'));
      if (products.payload.length)
        await api(service, 'POST', '/api/v1/updated-products/batch-delete', { ids: products.payload.map((p) => p.id) });
      const stocks = await timed(() => api<{ payload: Array<{ id: number }> }>(service, 'GET', '/api/v1/stocks/changed?limit=500'));
      if (stocks.payload.length)
        await api(service, 'POST', '/api/v1/stocks/changed/batch-delete', { ids: stocks.payload.map((s) => s.id) });
    }),
  ]);
  clearInterval(peakTimer);
  // Idle: V8 and glibc give memory back only after a while without work, the store at its idle recycle.
  await sleep(Math.min(30, IDLE_SECONDS) * 1000);
  const idle30Mb = service.rss() / MB;
  await sleep(Math.max(0, IDLE_SECONDS - 30) * 1000);
  const idleEndMb = service.rss() / MB;
  const metrics = await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${service.token}` } }).then((r) => r.text());
  const pause = (kind: string) =>
    1000 *
    Number(
      new RegExp(`^sync_gateway_embedded_housekeeping_longest_pause_seconds\\{kind="${kind}"\\} (\\S+)`, 'm').exec(metrics)?.[1] ?? NaN,
    );

  // The target compares with the size after the first 5 minutes (or half the run, when shorter).
  const reference = samples.find((s) => s.minute >= Math.min(5, SOAK_MINUTES / 2)) ?? samples[0]!;
  const last = samples[samples.length - 1]!;
  const summary = {
    date: new Date().toISOString(),
    minutes: SOAK_MINUTES,
    rate: RATE,
    referenceMinute: reference.minute,
    dataDirReferenceMb: reference.dataDirMb,
    dataDirEndMb: last.dataDirMb,
    dataDirMaxMb: Math.max(...samples.map((s) => s.dataDirMb)),
    walMaxMb: Math.max(...samples.map((s) => s.walMb)),
    idleRssStartMb: idleStartMb,
    idleRss30sMb: idle30Mb,
    idleSeconds: IDLE_SECONDS,
    idleRssEndMb: idleEndMb,
    peakRssMb: peakRss / MB,
    longestVacuumMs: pause('vacuum'),
    longestAnalyzeMs: pause('analyze'),
    longestCheckpointMs: pause('checkpoint'),
    slowestPollMs,
    recycles: Number(/^sync_gateway_embedded_recycles (\S+)/m.exec(metrics)?.[1] ?? NaN),
    errors: errors.length,
    firstErrors: errors.slice(0, 5),
  };
  writeFileSync(path.join(benchDir, 'soak.json'), `${JSON.stringify({ summary, samples }, null, 2)}\n`);
  await renderPlot(samples, summary, benchDir);
  log(`soak: ${JSON.stringify(summary)}`);
  return [
    {
      ...limitResult('soak', `data dir end / at minute ${reference.minute.toFixed(1)} (×)`, last.dataDirMb / reference.dataDirMb, 1.5),
      series: samples,
    } as Result,
    infoResult('soak', 'data dir MB at end', last.dataDirMb),
    limitResult('soak', 'idle RSS MB after start (embedded)', idleStartMb, 300),
    infoResult('soak', 'idle RSS MB 30 s after the soak (embedded)', idle30Mb),
    limitResult('soak', `idle RSS MB ${IDLE_SECONDS} s after the soak (embedded)`, idleEndMb, 300),
    limitResult('soak', 'peak RSS MB under pushes (embedded)', peakRss / MB, 450),
    infoResult('soak', 'longest VACUUM ms (statement + queue wait)', pause('vacuum')),
    infoResult('soak', 'longest ANALYZE ms (statement + queue wait)', pause('analyze')),
    infoResult('soak', 'longest CHECKPOINT ms (statement + queue wait)', pause('checkpoint')),
    infoResult('soak', 'slowest poll ms', slowestPollMs),
    limitResult('soak', 'errors', errors.length, 0),
  ];
}
