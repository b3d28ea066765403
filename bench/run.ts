/**
 * `npm run bench`: every scenario of issue 6 against PostgreSQL (BENCH_DATABASE_URL, default the
 * local server), each on a fresh database with the service started as a user starts it, side by
 * side with its baselines, ROUNDS rounds, medians. Then issue 29's targets on the embedded store (a
 * PostgreSQL cluster the service runs itself in DATA_DIR, ADR 0042), each beside its baseline in
 * the same run: the poll during pushes and the restart after kill -9 beside the previous build
 * (PGlite, BENCH_PREVIOUS_ROOT), the workloads beside the machine's PostgreSQL, the first start,
 * the cost of synchronous_commit, issue 30's bounded load on both providers (bench/bounded-load.ts)
 * and the shortened soak (SOAK_MINUTES) with the previous build alongside. Issue 31's cost rows
 * (bench/scenarios/channels.ts) on both providers: `BENCH_ONLY=channels` (or channels/poll-ack,
 * channels/poll-1m, channels/push). Writes
 * bench/results.json, bench/run.json and the tables in bench/RESULTS.md (a run with BENCH_ONLY
 * writes only with BENCH_WRITE=1, and then only its own scenarios' rows).
 * Not part of `npm test`.
 */
import { execSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { runBoundedLoad } from './bounded-load';
import { durabilityRows, firstStartRows, latencyRows, restartRows, soakRows, versusRows } from './lib/issue29';
import { limitResult, log, ROUNDS, type Result } from './lib/measure';
import { writeReport, type Issue29Row, type Issue31Row } from './lib/report';
import { BASE_DATABASE_URL, freshDatabase, peakRss, PREVIOUS_ROOT, startService, type Service } from './lib/service';
import { PRECHANNELS_ROOT, PROVIDER_LABEL, runPoll1m, runPollAck, runPush, type Provider } from './scenarios/channels';
import { runChangeWebhooks } from './scenarios/change-webhooks';
import { runCrashRestart } from './scenarios/crash-restart';
import { runDrain } from './scenarios/drain';
import { runEmbeddedDurability } from './scenarios/embedded-durability';
import { runEmbeddedLatency } from './scenarios/embedded-latency';
import { runEmbeddedVsServer, type Workload } from './scenarios/embedded-vs-server';
import { runFailureReports } from './scenarios/failure-reports';
import { runFirstStart } from './scenarios/first-start';
import { runPoll, seedPendingProducts, POLL_PRODUCTS } from './scenarios/poll';
import { runPollBacklog } from './scenarios/poll-backlog';
import { runPollPeers } from './scenarios/poll-peers';
import { runProductSync } from './scenarios/product-sync';
import { REALISTIC_DAY_MINUTES, runRealisticDay } from './scenarios/realistic-day';
import { runSoak, SOAK_MINUTES, type SoakSubject } from './scenarios/soak';
import { runStockUpsert } from './scenarios/stock-upsert';
import { runBacklogDrain, runWebhookFanout } from './scenarios/webhook-fanout';

const MB = 1024 * 1024;
const only = process.env.BENCH_ONLY?.split(',');
const wanted = (name: string) => !only || only.includes(name);
/** `embedded-vs-server` runs its three workloads; `embedded-vs-server/poll` (…/stock-upsert, …/product-sync) one. */
const wantedVersus = (workload: Workload) => wanted('embedded-vs-server') || wanted(`embedded-vs-server/${workload}`);
const RECORDS_AFTER_CRASH = Number(process.env.BENCH_CRASH_RECORDS ?? 100_000);
/** Issue 31's rows: `channels` runs the three, `channels/poll-ack` (…/poll-1m, …/push) one; on the providers of BENCH_CHANNELS_PROVIDERS. */
const CHANNEL_ROWS = ['poll-ack', 'poll-1m', 'push'] as const;
const wantedChannels = (row: (typeof CHANNEL_ROWS)[number]) => wanted('channels') || wanted(`channels/${row}`);
const CHANNEL_PROVIDERS = (process.env.BENCH_CHANNELS_PROVIDERS ?? 'postgresql,embedded').split(',') as Provider[];

/**
 * With BENCH_WAIT_LOAD=<n>, waits (up to BENCH_WAIT_LOAD_MINUTES, default 20) until the 1-minute
 * load average is below n before measuring, so that another user's work does not skew the rows.
 */
async function waitForQuietMachine(what: string): Promise<void> {
  const limit = Number(process.env.BENCH_WAIT_LOAD ?? 0);
  if (!limit) return;
  const deadline = Date.now() + Number(process.env.BENCH_WAIT_LOAD_MINUTES ?? 20) * 60_000;
  while (loadavg()[0]! >= limit && Date.now() < deadline) {
    log(`${what}: load ${loadavg()[0]!.toFixed(2)} ≥ ${limit}, waiting`);
    await sleep(30_000);
  }
  log(
    `${what}: load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}${loadavg()[0]! >= limit ? ' (still busy after the wait: measuring anyway)' : ''}`,
  );
}

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
  const service = await startService({ backend: 'embedded' });
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
  // The built server is what the scenarios start (dist/); BENCH_SKIP_BUILD=1 when it is built already.
  if (process.env.BENCH_SKIP_BUILD !== '1') execSync('npm run -s build', { stdio: 'inherit' });
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

  // Issue 32: change webhooks, pushed against polled, on both providers.
  if (wanted('change-webhooks')) {
    for (const provider of ['embedded', 'postgresql'] as const) {
      log(`change-webhooks on ${provider}`);
      const result = await runChangeWebhooks(provider);
      results.push(...result.results);
      rounds[`change-webhooks (${provider})`] = result.rounds;
    }
  }

  // Issue 31: the cost of channels, on both providers, each row beside its baseline in the same run.
  const issue31: Issue31Row[] = [];
  if (CHANNEL_ROWS.some(wantedChannels)) await waitForQuietMachine('channels');
  for (const row of CHANNEL_ROWS) {
    if (!wantedChannels(row)) continue;
    if (row === 'poll-ack' && !PRECHANNELS_ROOT) {
      log('channels/poll-ack: no build before channels (BENCH_CHANNELS_PREVIOUS_ROOT, default ../wt-prechannels): skipped');
      continue;
    }
    for (const provider of CHANNEL_PROVIDERS) {
      log(`channels/${row} on ${PROVIDER_LABEL[provider]}`);
      const run = row === 'poll-ack' ? runPollAck : row === 'poll-1m' ? runPoll1m : runPush;
      const { results: rows, rows: table, ...details } = await run(provider);
      results.push(...rows);
      issue31.push(...table);
      rounds[`channels/${row} (${PROVIDER_LABEL[provider]})`] = details;
    }
  }

  // Issue 29: the embedded store (a PostgreSQL cluster of the service's own), each target beside its baseline.
  const issue29: Issue29Row[] = [];
  const date = new Date().toISOString();
  if (wantedVersus('poll') || wantedVersus('stock-upsert') || wantedVersus('product-sync')) {
    log("embedded-vs-server: the embedded store against the machine's PostgreSQL");
    const result = await runEmbeddedVsServer(wantedVersus);
    results.push(...result.results);
    rounds['embedded-vs-server'] = result.rounds;
    issue29.push(...versusRows(result.rounds, date));
  }

  if (wanted('embedded-latency')) {
    log('embedded-latency: the embedded store and the previous build (PGlite), side by side');
    const result = await runEmbeddedLatency();
    results.push(...result.results);
    rounds['embedded-latency'] = result.rounds;
    issue29.push(...latencyRows(result.rounds, date));
  }

  if (wanted('crash-restart')) {
    log('crash-restart: kill -9 under polls and pushes, the embedded store and the previous build');
    const result = await runCrashRestart();
    results.push(...result.results);
    rounds['crash-restart'] = result.rounds;
    issue29.push(...restartRows(result.rounds, RECORDS_AFTER_CRASH, date));
  }

  if (wanted('first-start')) {
    log('first-start: an empty DATA_DIR, the embedded store and the previous build');
    const result = await runFirstStart();
    results.push(...result.results);
    rounds['first-start'] = result.samples;
    issue29.push(...firstStartRows(result.samples, date));
  }

  if (wanted('embedded-durability')) {
    log('embedded-durability: synchronous_commit on and off');
    const result = await runEmbeddedDurability();
    results.push(...result.results);
    rounds['embedded-durability'] = result.rounds;
    issue29.push(...durabilityRows(result.rounds, date));
  }

  // Issue 18's realistic day, on both backends (REALISTIC_DAY_MINUTES=0 skips it).
  if (wanted('realistic-day') && REALISTIC_DAY_MINUTES > 0) {
    log(`realistic-day on PostgreSQL and on the embedded store (${REALISTIC_DAY_MINUTES} min each)`);
    await withPostgresService({}, async (service) => {
      results.push(...(await runRealisticDay(service, 'PostgreSQL')));
    });
    await withEmbeddedService(async (service) => {
      results.push(...(await runRealisticDay(service, 'embedded')));
    });
  }

  // Issue 30: the largest allowed operations of every kind, 20 at once, on both providers.
  if (wanted('bounded-load')) {
    log('bounded-load on the embedded store and PostgreSQL');
    results.push(...(await runBoundedLoad()));
  }

  // The shortened soak of issues 20 and 29 (SOAK_MINUTES=0 skips it; SOAK_MINUTES=3 for a quick look).
  if (wanted('soak') && SOAK_MINUTES > 0) {
    const alongside = process.env.SOAK_PREVIOUS !== '0' ? PREVIOUS_ROOT : undefined;
    log(`soak on the embedded store (${SOAK_MINUTES} min)${alongside ? ', the previous build alongside' : ''}`);
    const subjects: SoakSubject[] = [{ label: 'embedded', service: await startService({ backend: 'embedded' }) }];
    try {
      if (alongside) subjects.push({ label: 'previous build', service: await startService({ backend: 'embedded', root: alongside }) });
      const result = await runSoak(subjects, __dirname);
      results.push(...result.results);
      rounds.soak = result.summaries;
      issue29.push(...soakRows(result.summaries, SOAK_MINUTES, Number(process.env.SOAK_RATE ?? 4), date));
    } finally {
      for (const { service } of subjects) await service.stop();
    }
  }

  console.table(
    results.map(({ scenario, metric, value, baseline, target, pass }) => ({ scenario, metric, value, baseline, target, pass })),
  );
  if (!only || process.env.BENCH_WRITE === '1') {
    writeReport(
      __dirname,
      results,
      { date, postgres: await postgresVersion(), rounds: ROUNDS, details: rounds, issue29, issue31 },
      only ? [...new Set(results.map((r) => r.scenario))] : undefined,
    );
    log(`wrote bench/results.json, bench/run.json and bench/RESULTS.md${only ? " (the rows of this run's scenarios)" : ''}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
