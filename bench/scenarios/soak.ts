/**
 * The soak of issue 20, shortened, on the embedded store (issue 29: a PostgreSQL cluster the service
 * runs itself, ADR 0042): the issue's workload at SOAK_RATE times its rate (default 4) for
 * SOAK_MINUTES (default 10; 0 skips it), sampling every SAMPLE_MS the size of DATA_DIR (and of its
 * store and WAL) and the memory of the whole service: PSS summed over Node's process tree and the
 * cluster's postmaster tree (bench/lib/memory.ts), and Node's own RSS. The previous build (PGlite in
 * the process, BENCH_PREVIOUS_ROOT) runs the same workload alongside, at the same time, on its own
 * DATA_DIR (SOAK_PREVIOUS=0 leaves it out): both share the machine's two cores for the whole soak.
 * Writes bench/soak.json and the plot bench/soak.svg / bench/soak.png; returns the summary rows.
 *
 * The issue's workload at 1×: 20,000 products and 20,000 stocks; every 10 s a re-push of 500
 * products and 2,000 stocks with some changes; every 60 s a 5,000-product push; a webshop polling
 * and acknowledging both lists; a failure report every 2 s.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { directoryBytes } from '../../src/ops/store-metrics';
import { infoResult, limitResult, log, type Result } from '../lib/measure';
import { peakMemory } from '../lib/memory';
import { renderPlot } from '../lib/plot';
import { api, type Service } from '../lib/service';

export const SOAK_MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RATE = Number(process.env.SOAK_RATE ?? 4);
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_MS ?? 5_000);
/** How long the service idles after the load before its memory is read (also read at 30 s). */
const IDLE_SECONDS = Number(process.env.SOAK_IDLE_SECONDS ?? 60);
/** After the start, before the idle reading: the worker thread's first claims, the pools' first connections. */
const SETTLE_SECONDS = 5;
const RECORDS = 20_000;
const IDLE_LIMIT_MB = 230;
const PEAK_LIMIT_MB = 350;

export type SoakSample = {
  minute: number;
  dataDirMb: number;
  storeMb: number;
  walMb: number;
  pssMb: number;
  nodePssMb: number;
  rssMb: number;
};

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

export type SoakSubject = { label: 'embedded' | 'previous build'; service: Service };

export type SoakSummary = {
  label: string;
  referenceMinute: number;
  dataDirReferenceMb: number;
  dataDirEndMb: number;
  dataDirMaxMb: number;
  walMaxMb: number;
  idleStartPssMb: number;
  idleStartNodePssMb: number;
  idleStartRssMb: number;
  idle30sPssMb: number;
  idleEndPssMb: number;
  idleEndNodePssMb: number;
  idleEndRssMb: number;
  peakPssMb: number;
  /** Node's tree's share of the peak, at the moment of the peak. */
  peakNodePssMb: number;
  peakRssMb: number;
  slowestPollMs: number;
  errors: number;
  firstErrors: string[];
};

/** The store's own directory inside DATA_DIR: a cluster (postgres/), or a PGlite build's store (pglite/). */
const storeDirectory = (service: Service) =>
  path.join(service.dataDir, existsSync(path.join(service.dataDir, 'postgres')) ? 'postgres' : 'pglite');

async function soakOne(subject: SoakSubject, started: number, until: number, samples: SoakSample[]): Promise<SoakSummary> {
  const { service, label } = subject;
  const storeDir = storeDirectory(service);
  const errors: string[] = [];
  let slowestPollMs = 0;
  const sample = async () => {
    const memory = service.memory();
    samples.push({
      minute: (Date.now() - started) / 60_000,
      dataDirMb: (await directoryBytes(service.dataDir)) / 1024 / 1024,
      storeMb: (await directoryBytes(storeDir)) / 1024 / 1024,
      walMb: (await directoryBytes(path.join(storeDir, 'pg_wal'))) / 1024 / 1024,
      pssMb: memory.pssMb,
      nodePssMb: memory.rootPssMb,
      rssMb: memory.rootRssMb,
    });
  };
  const timed = async <T>(work: () => Promise<T>) => {
    const t = performance.now();
    const result = await work();
    slowestPollMs = Math.max(slowestPollMs, performance.now() - t);
    return result;
  };
  const { peakPssMb, peakRootRssMb, atPeak } = await peakMemory(service.memory, () =>
    Promise.all([
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
    ]),
  );
  // The issue's target compares with the size after the first 5 minutes (or half the run, when shorter).
  const reference = samples.find((s) => s.minute >= Math.min(5, SOAK_MINUTES / 2)) ?? samples[0]!;
  const last = samples[samples.length - 1]!;
  return {
    label,
    referenceMinute: reference.minute,
    dataDirReferenceMb: reference.dataDirMb,
    dataDirEndMb: last.dataDirMb,
    dataDirMaxMb: Math.max(...samples.map((s) => s.dataDirMb)),
    walMaxMb: Math.max(...samples.map((s) => s.walMb)),
    idleStartPssMb: NaN,
    idleStartNodePssMb: NaN,
    idleStartRssMb: NaN,
    idle30sPssMb: NaN,
    idleEndPssMb: NaN,
    idleEndNodePssMb: NaN,
    idleEndRssMb: NaN,
    peakPssMb,
    peakNodePssMb: atPeak?.rootPssMb ?? NaN,
    peakRssMb: peakRootRssMb,
    slowestPollMs,
    errors: errors.length,
    firstErrors: errors.slice(0, 5),
  };
}

export async function runSoak(subjects: SoakSubject[], benchDir: string): Promise<{ results: Result[]; summaries: SoakSummary[] }> {
  await sleep(SETTLE_SECONDS * 1000);
  const idleStart = subjects.map((s) => s.service.memory());
  log(
    `soak: idle after start ${subjects.map((s, i) => `${s.label} PSS ${idleStart[i]!.pssMb.toFixed(0)} MB`).join(', ')}; seeding ${RECORDS} products and stocks`,
  );
  await Promise.all(
    subjects.map(async ({ service }) => {
      for (let from = 0; from < RECORDS; from += 5_000)
        await api(service, 'POST', '/api/v1/products', { products: productBatch(from, 5_000, 0) });
      for (let from = 0; from < RECORDS; from += 2_000)
        await api(service, 'POST', '/api/v1/stocks', { stocks: stockBatch(from, 2_000, 0) });
    }),
  );
  const started = Date.now();
  const until = started + SOAK_MINUTES * 60_000;
  log(`soak: ${SOAK_MINUTES} min at ${RATE}× the issue's rate (${subjects.map((s) => s.label).join(' and ')} at once)`);
  const series = subjects.map(() => [] as SoakSample[]);
  const summaries = await Promise.all(subjects.map((subject, i) => soakOne(subject, started, until, series[i]!)));
  // Idle: V8 and glibc give memory back only after a while without work; autovacuum runs on its own.
  await sleep(Math.min(30, IDLE_SECONDS) * 1000);
  const idle30 = subjects.map((s) => s.service.memory());
  await sleep(Math.max(0, IDLE_SECONDS - 30) * 1000);
  const idleEnd = subjects.map((s) => s.service.memory());
  summaries.forEach((summary, i) => {
    summary.idleStartPssMb = idleStart[i]!.pssMb;
    summary.idleStartNodePssMb = idleStart[i]!.rootPssMb;
    summary.idleStartRssMb = idleStart[i]!.rootRssMb;
    summary.idle30sPssMb = idle30[i]!.pssMb;
    summary.idleEndPssMb = idleEnd[i]!.pssMb;
    summary.idleEndNodePssMb = idleEnd[i]!.rootPssMb;
    summary.idleEndRssMb = idleEnd[i]!.rootRssMb;
  });
  const date = new Date().toISOString();
  writeFileSync(
    path.join(benchDir, 'soak.json'),
    `${JSON.stringify({ date, minutes: SOAK_MINUTES, rate: RATE, idleSeconds: IDLE_SECONDS, summaries, samples: Object.fromEntries(subjects.map((s, i) => [s.label, series[i]])) }, null, 2)}\n`,
  );
  await renderPlot(
    subjects.map((s, i) => ({ label: s.label, samples: series[i]! })),
    { date, minutes: SOAK_MINUTES, rate: RATE },
    benchDir,
  );
  log(`soak: ${JSON.stringify(summaries)}`);
  const main = summaries.find((s) => s.label === 'embedded')!;
  const previous = summaries.find((s) => s.label === 'previous build');
  const base = (pick: (s: SoakSummary) => number) => (previous ? pick(previous) : null);
  const mainSeries = series[subjects.findIndex((s) => s.label === 'embedded')]!;
  const results: Result[] = [
    {
      ...limitResult(
        'soak',
        `data dir end / at minute ${main.referenceMinute.toFixed(1)} (×), ${SOAK_MINUTES} min`,
        main.dataDirEndMb / main.dataDirReferenceMb,
        1.5,
        base((s) => s.dataDirEndMb / s.dataDirReferenceMb),
      ),
      series: mainSeries,
    } as Result,
    infoResult('soak', `data dir MB at minute ${main.referenceMinute.toFixed(1)}`, main.dataDirReferenceMb),
    infoResult('soak', 'data dir MB at end', main.dataDirEndMb),
    limitResult(
      'soak',
      'idle PSS MB after start, Node + cluster (baseline: previous build)',
      main.idleStartPssMb,
      IDLE_LIMIT_MB,
      base((s) => s.idleStartPssMb),
    ),
    infoResult('soak', 'idle PSS MB 30 s after the soak, Node + cluster', main.idle30sPssMb),
    limitResult(
      'soak',
      `idle PSS MB ${IDLE_SECONDS} s after the soak, Node + cluster (baseline: previous build)`,
      main.idleEndPssMb,
      IDLE_LIMIT_MB,
      base((s) => s.idleEndPssMb),
    ),
    limitResult(
      'soak',
      'peak PSS MB under pushes, Node + cluster (baseline: previous build)',
      main.peakPssMb,
      PEAK_LIMIT_MB,
      base((s) => s.peakPssMb),
    ),
    {
      ...infoResult('soak', 'peak RSS MB of the Node process alone (baseline: previous build)', main.peakRssMb),
      baseline: base((s) => Number(s.peakRssMb.toFixed(1))),
    },
    { ...infoResult('soak', 'slowest poll ms', main.slowestPollMs), baseline: base((s) => Number(s.slowestPollMs.toFixed(1))) },
    limitResult(
      'soak',
      'errors',
      main.errors,
      0,
      base((s) => s.errors),
    ),
  ];
  return { results, summaries };
}
