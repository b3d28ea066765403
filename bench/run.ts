/**
 * `npm run bench`: every scenario of issue 6 against PostgreSQL (BENCH_DATABASE_URL, default the
 * local server), each on a fresh database with the service started as a user starts it, side by
 * side with its baselines, ROUNDS rounds, medians. Then stock-upsert and poll on the embedded
 * PGlite backend, its cost of syncing the WAL (EMBEDDED_FSYNC on and off), and the shortened soak
 * of the embedded store (bench/scenarios/soak.ts, SOAK_MINUTES), and issue 30's bounded load on both
 * backends (bench/bounded-load.ts). Writes bench/results.json, bench/run.json and the table in bench/RESULTS.md.
 * Not part of `npm test`.
 */
import { execSync } from 'node:child_process';
import { Client } from 'pg';
import { runBoundedLoad } from './bounded-load';
import { limitResult, log, median, ROUNDS, type Result } from './lib/measure';
import { writeReport } from './lib/report';
import { BASE_DATABASE_URL, freshDatabase, peakRss, startService, type Service, type ServiceOptions } from './lib/service';
import { runCrashRestart } from './scenarios/crash-restart';
import { runDrain } from './scenarios/drain';
import { runEmbeddedDurability } from './scenarios/embedded-durability';
import { runEmbeddedLatency } from './scenarios/embedded-latency';
import { runFailureReports } from './scenarios/failure-reports';
import { pollRest, runPoll, seedPendingProducts, POLL_PRODUCTS } from './scenarios/poll';
import { runPollBacklog } from './scenarios/poll-backlog';
import { runPollPeers } from './scenarios/poll-peers';
import { runProductSync } from './scenarios/product-sync';
import { REALISTIC_DAY_MINUTES, runRealisticDay } from './scenarios/realistic-day';
import { runSoak, SOAK_MINUTES } from './scenarios/soak';
import { runStockUpsert, serviceStockUpsertRate } from './scenarios/stock-upsert';
import { runBacklogDrain, runWebhookFanout } from './scenarios/webhook-fanout';

const MB = 1024 * 1024;
const only = process.env.BENCH_ONLY?.split(',');
const wanted = (name: string) => !only || only.includes(name);

/** A fresh database and a service on it for one scenario; both go away afterwards. */
async function withPostgresService<T>(
  env: Record<string, string>,
  work: (service: Service, databaseUrl: string) => Promise<T>,
): Promise<T> {
  const db = await freshDatabase();
  const service = await startService({ backend: 'postgresql', databaseUrl: db.url, env });
  try {
    return await work(service, db.url);
  } finally {
    await service.stop();
    await db.drop();
  }
}

async function withEmbeddedService<T>(work: (service: Service) => Promise<T>): Promise<T> {
  const options: ServiceOptions = { backend: 'pglite' };
  const service = await startService(options);
  try {
    return await work(service);
  } finally {
    await service.stop();
  }
}

async function postgresVersion(): Promise<string> {
  const client = new Client({ connectionString: BASE_DATABASE_URL });
  await client.connect();
  const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
  await client.end();
  return `PostgreSQL ${rows[0]!.server_version.split(' ')[0]} on loopback`;
}

async function main(): Promise<void> {
  execSync('npm run -s build', { stdio: 'inherit' });
  const results: Result[] = [];
  const rounds: Record<string, unknown> = {};
  const peaks: number[] = [];

  if (wanted('stock-upsert')) {
    log('stock-upsert on PostgreSQL');
    await withPostgresService({}, async (service, url) => {
      const { result, peakBytes } = await peakRss(service, () => runStockUpsert(service, url));
      results.push(...result.results);
      rounds['stock-upsert'] = result.rounds;
      peaks.push(peakBytes);
      log(`stock-upsert peak RSS ${(peakBytes / MB).toFixed(0)} MB`);
    });
  }
  if (wanted('product-sync')) {
    log('product-sync on PostgreSQL');
    await withPostgresService({}, async (service, url) => {
      const result = await runProductSync(service, url);
      results.push(...result.results);
      rounds['product-sync'] = result.rounds;
    });
  }
  if (wanted('poll') || wanted('poll-peers')) {
    log('poll, poll-graphql and poll-peers on PostgreSQL');
    await withPostgresService({}, async (service, url) => {
      await seedPendingProducts(service, POLL_PRODUCTS);
      if (wanted('poll')) {
        const { result, peakBytes } = await peakRss(service, () => runPoll(service, url));
        results.push(...result.results);
        rounds.poll = result.rounds;
        peaks.push(peakBytes);
        log(`poll peak RSS ${(peakBytes / MB).toFixed(0)} MB`);
      }
      // The same 10,000 pending products, against PostGraphile and the raw baseline (issue 18).
      if (wanted('poll-peers')) {
        const result = await runPollPeers(service, url);
        results.push(...result.results);
        rounds['poll-peers'] = result.rounds;
      }
    });
  }
  if (wanted('poll-backlog')) {
    log('poll-backlog on PostgreSQL: 10k and 1M pending products');
    await withPostgresService({}, (small, smallUrl) =>
      withPostgresService({}, async (large, largeUrl) => {
        const result = await runPollBacklog({ service: small, databaseUrl: smallUrl }, { service: large, databaseUrl: largeUrl });
        results.push(...result.results);
        rounds['poll-backlog'] = result.rounds;
      }),
    );
  }
  if (peaks.length > 0) results.push(limitResult('memory', 'peak RSS MB (stock-upsert, poll)', Math.max(...peaks) / MB, 250));
  if (wanted('drain')) {
    log('drain on PostgreSQL');
    await withPostgresService({}, async (service, url) => {
      const result = await runDrain(service, url);
      results.push(...result.results);
      rounds.drain = result.rounds;
    });
  }
  if (wanted('webhook-fanout')) {
    log('webhook-fanout on PostgreSQL');
    await withPostgresService({}, async (service) => {
      const result = await runWebhookFanout(service);
      results.push(...result.results);
      rounds['webhook-fanout'] = result.rounds;
    });
    await withPostgresService({ WORKER_ENABLED: 'false' }, async (service) => {
      results.push(await runBacklogDrain(service));
    });
  }

  if (wanted('failure-reports')) {
    log('failure-reports on PostgreSQL, against the hand-written equivalent');
    await withPostgresService({}, async (service) => {
      const result = await runFailureReports(service);
      results.push(...result.results);
      rounds['failure-reports'] = result.rounds;
    });
  }

  const embedded: Array<{ scenario: string; metric: string; value: number }> = [];
  if (wanted('embedded')) {
    log('stock-upsert and poll on embedded PGlite');
    await withEmbeddedService(async (service) => {
      embedded.push({ scenario: 'stock-upsert', metric: 'rows/s', value: await serviceStockUpsertRate(service) });
    });
    await withEmbeddedService(async (service) => {
      await seedPendingProducts(service, POLL_PRODUCTS);
      const loads = [];
      for (let round = 0; round < ROUNDS; round++) loads.push(await pollRest(service, undefined, true));
      embedded.push({ scenario: 'poll', metric: 'req/s', value: median(loads.map((l) => l.reqPerSec)) });
      embedded.push({ scenario: 'poll', metric: 'p99 ms', value: median(loads.map((l) => l.p99Ms)) });
      embedded.push({ scenario: 'poll', metric: 'requests timed out (10 s) per 20 s run', value: median(loads.map((l) => l.timeouts)) });
    });
  }

  if (wanted('embedded-latency')) {
    log('embedded-latency on embedded PGlite');
    await withEmbeddedService(async (service) => {
      const result = await runEmbeddedLatency(service);
      results.push(...result.results);
      rounds['embedded-latency'] = result.details;
    });
  }

  if (wanted('crash-restart')) {
    log('crash-restart on embedded PGlite');
    const result = await runCrashRestart();
    results.push(...result.results);
    rounds['crash-restart'] = result.rounds;
  }

  if (wanted('embedded-durability')) console.table(await runEmbeddedDurability());

  // Issue 18's realistic day, on both backends (REALISTIC_DAY_MINUTES=0 skips it).
  if (wanted('realistic-day') && REALISTIC_DAY_MINUTES > 0) {
    log(`realistic-day on PostgreSQL and on embedded PGlite (${REALISTIC_DAY_MINUTES} min each)`);
    await withPostgresService({}, async (service) => {
      results.push(...(await runRealisticDay(service, 'PostgreSQL')));
    });
    await withEmbeddedService(async (service) => {
      results.push(...(await runRealisticDay(service, 'embedded')));
    });
  }

  // Issue 30: the largest allowed operations of every kind, 20 at once, on both backends.
  if (wanted('bounded-load')) {
    log('bounded-load on embedded PGlite and PostgreSQL');
    results.push(...(await runBoundedLoad()));
  }

  // The shortened soak of issue 20 (SOAK_MINUTES=0 skips it; SOAK_MINUTES=3 for a quick look).
  if (wanted('soak') && SOAK_MINUTES > 0) {
    log(`soak on embedded PGlite (${SOAK_MINUTES} min)`);
    await withEmbeddedService(async (service) => {
      results.push(...(await runSoak(service, __dirname)));
    });
  }

  console.table(results);
  console.table(embedded);
  if (!only) {
    writeReport(
      __dirname,
      results,
      { date: new Date().toISOString(), postgres: await postgresVersion(), rounds: ROUNDS, details: rounds },
      embedded,
    );
    log('wrote bench/results.json, bench/run.json and bench/RESULTS.md');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
