/**
 * channels (issue 31, ADR 0045): the cost rows of channels, on both providers (the machine's
 * PostgreSQL, BENCH_DATABASE_URL, a fresh database each; and the embedded store, a cluster of the
 * service's own in a fresh DATA_DIR). Each row measures both of its sides in every round, the order
 * alternating, and is judged on the median of the per-round ratios (issue 33).
 *
 * - poll-ack: an install with channel `default` alone, against the build before channels
 *   (BENCH_CHANNELS_PREVIOUS_ROOT, default ../wt-prechannels: commit cc1494a, built). Each build
 *   runs its own service on its own store with BENCH_CH_RECORDS (20,000) products pushed through
 *   the API, made pending again by SQL before each side of each round; then the poll
 *   (`GET /api/v1/updated-products?limit=50`, BENCH_CH_CONNECTIONS (16) connections,
 *   BENCH_CH_POLL_SECONDS (10) s) and the drain (list 500, `POST …/batch-delete` of their ids,
 *   until nothing is pending), whose acknowledgement requests are timed on their own.
 *   Target: ≥ 0.9 × the previous build, each.
 * - poll-1m: one service, BENCH_CH_POLL_RECORDS (1,000,000) pending products inserted by SQL with
 *   the columns a push writes (poll-backlog's seeding), then, in each round, three phases in
 *   rotating order, each set up from scratch (channels deleted, then created `--from all` after the
 *   seeding, so every record is pending on each): no channel but default, polled with a webshop
 *   token of default; one channel, polled with a webshop token bound to it; ten channels, polled
 *   with a webshop token bound to one of them. The same poll as above. `meta.total` of each phase
 *   is checked against a count of the records pending for that reader. Target: ten channels
 *   ≥ 0.9 × default alone (the install before its first channel); the single non-default channel
 *   is reported beside it.
 * - push: two services of this build, each on its own store, the same pushes: BENCH_CH_PUSHES (10)
 *   × `POST /api/v1/stocks` of 10,000 entries (half changed) per round; one with channel default
 *   alone, one with BENCH_CH_CHANNELS (10) channels created `--from now` (BENCH_CH_FROM) after the
 *   stock rows exist and two pushes before the first round, so that every changed row lies above
 *   every cursor with an acknowledgement row of each channel (the trigger's costliest case).
 *   Checked: each channel's count equals a count of its pending rows; the pushes wrote no
 *   acknowledgement row. Target: ≥ 0.8 × the push without channels.
 */
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { Client } from 'pg';
import { createToken } from '../../src/auth/token.service';
import { createChannel, deleteChannel, listChannels } from '../../src/channels/channel.service';
import { runningClusterUrl } from '../../src/db/embedded-postgres';
import { PrismaClient } from '../../src/generated/prisma/client';
import { httpLoad, infoResult, log, median, roundRatioResult, ROUNDS, timed, type HttpLoad, type Result } from '../lib/measure';
import type { Issue31Row } from '../lib/report';
import { api, freshDatabase, ROOT, SERVICE_ROOT, startService, type Service } from '../lib/service';
import { seedPendingBySql } from './poll-backlog';
import { seedPendingProducts } from './poll';
import { ENTRIES, serviceStockUpsertRound, stockBatch } from './stock-upsert';

export type Provider = 'postgresql' | 'embedded';
export const PROVIDER_LABEL: Record<Provider, string> = { postgresql: 'PostgreSQL', embedded: 'embedded' };

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CONNECTIONS = env('BENCH_CH_CONNECTIONS', 16);
const POLL_SECONDS = env('BENCH_CH_POLL_SECONDS', 10);
const RECORDS = env('BENCH_CH_RECORDS', 20_000);
const POLL_RECORDS = env('BENCH_CH_POLL_RECORDS', 1_000_000);
const PUSHES = env('BENCH_CH_PUSHES', 10);
const CHANNELS = env('BENCH_CH_CHANNELS', 10);
const PUSH_FROM = (process.env.BENCH_CH_FROM ?? 'now') as 'now' | 'all';
/** Diagnosis only: BENCH_CH_PG_JIT=off sets jit = off on the PostgreSQL provider's databases (the server's default is on). */
const PG_JIT = process.env.BENCH_CH_PG_JIT;
const PAGE = 50;
const DRAIN_PAGE = 500;

/** The build before channels (commit cc1494a, built); the poll-ack row is skipped without it. */
export const PRECHANNELS_ROOT: string | undefined = (() => {
  const root = path.resolve(process.env.BENCH_CHANNELS_PREVIOUS_ROOT ?? path.join(ROOT, '..', 'wt-prechannels'));
  return existsSync(path.join(root, 'dist', 'cli', 'main.js')) ? root : undefined;
})();

/** The last commit of a checkout that changed what runs (src/, prisma/), short. */
export function buildOf(root: string): string {
  try {
    return execSync('git log -1 --format=%h -- src prisma package.json', { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export type ChannelsRow = Issue31Row;

type Running = { service: Service; databaseUrl: string; stop(): Promise<void> };

/** A service of the build at `root` on a store of its own: a fresh database migrated by that build, or a fresh DATA_DIR. */
async function startOn(provider: Provider, root: string = SERVICE_ROOT): Promise<Running> {
  if (provider === 'postgresql') {
    const db = await freshDatabase(root);
    if (PG_JIT)
      await withClient(db.url, (c) =>
        c.query(`ALTER DATABASE ${new URL(db.url).pathname.slice(1)} SET jit = ${PG_JIT === 'off' ? 'off' : 'on'}`),
      );
    const service = await startService({ backend: 'postgresql', databaseUrl: db.url, root }).catch(async (error: unknown) => {
      await db.drop();
      throw error;
    });
    return {
      service,
      databaseUrl: db.url,
      async stop() {
        await service.stop();
        await db.drop();
      },
    };
  }
  const service = await startService({ backend: 'embedded', root });
  const url = await runningClusterUrl(service.dataDir);
  if (!url) {
    await service.stop();
    throw new Error('the embedded cluster is not running');
  }
  return { service, databaseUrl: url, stop: () => service.stop() };
}

const loadNow = () => Number(loadavg()[0]!.toFixed(2));
const n0 = (x: number) => Math.round(x).toLocaleString('en');
const n2 = (x: number) => x.toFixed(2);

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function prismaOn(url: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
}

const pollUrl = (service: Service) => `${service.url}/api/v1/updated-products?limit=${PAGE}`;

async function metaTotal(service: Service, token: string): Promise<number> {
  const res = await fetch(pollUrl(service), { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`poll → ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return ((await res.json()) as { meta: { total: number } }).meta.total;
}

const poll = (service: Service, token: string, durationS = POLL_SECONDS): Promise<HttpLoad> =>
  httpLoad({ url: pollUrl(service), connections: CONNECTIONS, durationS, headers: { authorization: `Bearer ${token}` } });
/** Seconds of polling before a measured poll, not counted: the first requests of a token or a plan. */
const WARM_SECONDS = env('BENCH_CH_WARM_SECONDS', 2);

// ---------------------------------------------------------------------------------------------
// poll-ack: channel default alone against the build before channels

/** Every product pending again, as just pushed, listings forgotten, and the table vacuumed (the drain scenario's reset). */
async function makeAllPending(url: string): Promise<void> {
  await withClient(url, async (client) => {
    await client.query(`UPDATE products SET acked_revision = 0, listed_revisions = '{}', pending = true, is_new = true, acknowledged_at = NULL,
                               changed_fields = ARRAY(SELECT jsonb_object_keys(field_revisions) ORDER BY 1)`);
    await client.query('VACUUM ANALYZE products');
  });
}

/** List a page of 500, acknowledge its ids, until nothing is pending: records, and seconds of the whole and of the acks alone. */
async function drain(
  service: Service,
): Promise<{ records: number; seconds: number; ackSeconds: number; listSeconds: number; acks: number }> {
  let records = 0;
  let ackSeconds = 0;
  let listSeconds = 0;
  let acks = 0;
  const { seconds } = await timed(async () => {
    for (;;) {
      const listed = await timed(() =>
        api<{ payload: Array<{ id: number }> }>(service, 'GET', `/api/v1/updated-products?limit=${DRAIN_PAGE}`),
      );
      listSeconds += listed.seconds;
      const page = listed.result;
      if (page.payload.length === 0) return;
      const ack = await timed(() =>
        api<{ acknowledged: number }>(service, 'POST', '/api/v1/updated-products/batch-delete', { ids: page.payload.map((p) => p.id) }),
      );
      ackSeconds += ack.seconds;
      acks++;
      records += ack.result.acknowledged;
    }
  });
  return { records, seconds, ackSeconds, listSeconds, acks };
}

type PollAckSide = { poll: HttpLoad; ackRecordsPerS: number; listRecordsPerS: number; drainRecordsPerS: number; ackMsPerRequest: number };

export type PollAckRound = {
  round: number;
  load: number;
  current: PollAckSide;
  previous: PollAckSide;
};

export async function runPollAck(provider: Provider): Promise<{ results: Result[]; rounds: PollAckRound[]; rows: ChannelsRow[] }> {
  if (!PRECHANNELS_ROOT)
    throw new Error('channels/poll-ack needs the build before channels: BENCH_CHANNELS_PREVIOUS_ROOT (default ../wt-prechannels)');
  const label = PROVIDER_LABEL[provider];
  const current = await startOn(provider);
  let previous: Running | undefined;
  const rounds: PollAckRound[] = [];
  try {
    previous = await startOn(provider, PRECHANNELS_ROOT);
    const sides = { current, previous };
    for (const side of Object.values(sides)) {
      await seedPendingProducts(side.service, RECORDS);
      if (WARM_SECONDS > 0) {
        // A first poll and a first drain, not counted: each build's statements prepared and its code compiled.
        await poll(side.service, side.service.token, WARM_SECONDS);
        await makeAllPending(side.databaseUrl);
        await drain(side.service);
      }
    }
    for (let round = 1; round <= ROUNDS; round++) {
      const load = loadNow();
      const order = round % 2 === 1 ? (['current', 'previous'] as const) : (['previous', 'current'] as const);
      const got: Partial<Record<'current' | 'previous', PollAckRound['current']>> = {};
      for (const which of order) {
        const { service, databaseUrl } = sides[which];
        await makeAllPending(databaseUrl);
        const total = await metaTotal(service, service.token);
        if (total !== RECORDS) throw new Error(`${which} build: meta.total ${total}, expected ${RECORDS}`);
        const polled = await poll(service, service.token);
        const drained = await drain(service);
        if (drained.records !== RECORDS) throw new Error(`${which} build drained ${drained.records} of ${RECORDS}`);
        got[which] = {
          poll: polled,
          ackRecordsPerS: drained.records / drained.ackSeconds,
          listRecordsPerS: drained.records / drained.listSeconds,
          drainRecordsPerS: drained.records / drained.seconds,
          ackMsPerRequest: (drained.ackSeconds * 1000) / drained.acks,
        };
      }
      const r: PollAckRound = { round, load, current: got.current!, previous: got.previous! };
      log(
        `channels/poll-ack ${label} round ${round}: poll ${r.current.poll.reqPerSec.toFixed(0)} req/s (previous build ${r.previous.poll.reqPerSec.toFixed(0)}), ` +
          `ack ${r.current.ackRecordsPerS.toFixed(0)} records/s, ${r.current.ackMsPerRequest.toFixed(1)} ms per 500 (previous ${r.previous.ackRecordsPerS.toFixed(0)}, ` +
          `${r.previous.ackMsPerRequest.toFixed(1)} ms); list 500 ${r.current.listRecordsPerS.toFixed(0)} / ${r.previous.listRecordsPerS.toFixed(0)} records/s; drain ${r.current.drainRecordsPerS.toFixed(0)} / ${r.previous.drainRecordsPerS.toFixed(0)} records/s; load ${load}`,
      );
      rounds.push(r);
    }
  } finally {
    await previous?.stop();
    await current.stop();
  }
  const scenario = `channels/poll-ack (${label})`;
  const pollResult = roundRatioResult(
    scenario,
    `poll req/s, channel default alone, ${RECORDS.toLocaleString('en')} pending, ${CONNECTIONS} connections`,
    rounds.map((r) => ({ value: r.current.poll.reqPerSec, baseline: r.previous.poll.reqPerSec })),
    0.9,
    'the build before channels',
  );
  const ackResult = roundRatioResult(
    scenario,
    `ack records/s (batch-delete of 500 listed ids), channel default alone`,
    rounds.map((r) => ({ value: r.current.ackRecordsPerS, baseline: r.previous.ackRecordsPerS })),
    0.9,
    'the build before channels',
  );
  const drainResult = roundRatioResult(
    scenario,
    `drain records/s (list 500, ack them), channel default alone`,
    rounds.map((r) => ({ value: r.current.drainRecordsPerS, baseline: r.previous.drainRecordsPerS })),
    0.9,
    'the build before channels',
  );
  const date = new Date().toISOString();
  const build = `${buildOf(SERVICE_ROOT)} vs ${buildOf(PRECHANNELS_ROOT)}`;
  const loads = rounds.map((r) => r.load);
  const row = (name: string, unit: string, result: typeof pollResult): ChannelsRow => ({
    key: 'poll-ack',
    row: name,
    provider: label,
    baseline: `${n0(result.baseline!)} ${unit} (build before channels)`,
    channels: `${n0(result.value)} ${unit}`,
    ratio: `${n2(result.ratio!)} (${n2(result.range[0])}–${n2(result.range[1])})`,
    target: '≥ 0.9 × the build before channels',
    met: result.pass!,
    date,
    build,
    load: `${Math.min(...loads)}–${Math.max(...loads)}`,
  });
  return {
    rounds,
    results: [
      strip(pollResult),
      {
        ...infoResult(scenario, 'poll p99 ms (baseline: the build before channels)', median(rounds.map((r) => r.current.poll.p99Ms))),
        baseline: median(rounds.map((r) => r.previous.poll.p99Ms)),
      },
      strip(ackResult),
      strip(drainResult),
    ],
    rows: [
      row(`1 channel: poll, ${RECORDS.toLocaleString('en')} pending, ${CONNECTIONS} conn.`, 'req/s', pollResult),
      row('1 channel: ack (batch-delete of 500 listed ids)', 'records/s', ackResult),
      row('1 channel: drain (list 500 + ack, until empty)', 'records/s', drainResult),
    ],
  };
}

const strip = ({ range: _range, ...result }: Result & { range: [number, number] }): Result => result;

// ---------------------------------------------------------------------------------------------
// poll-1m: a poll on one of ten channels over 1,000,000 records

type Phase = 'default alone' | 'one channel' | 'ten channels';
const PHASES: Phase[] = ['default alone', 'one channel', 'ten channels'];
const POLLED = 'shop';

/** Deletes every channel but default, creates the phase's (`--from all`), and a webshop token on the polled one. */
async function setUpPhase(
  prisma: PrismaClient,
  phase: Phase,
  tag: string,
): Promise<{ token: string; channelId: number | null; setupS: number }> {
  const { result, seconds } = await timed(async () => {
    for (const channel of await listChannels(prisma)) if (channel.name !== 'default') await deleteChannel(prisma, channel.name);
    const count = phase === 'default alone' ? 0 : phase === 'one channel' ? 1 : CHANNELS;
    // The polled channel in the middle of the others, as one shop among several.
    const names = Array.from({ length: count }, (_, i) => (i === Math.floor((count - 1) / 2) ? POLLED : `other-${i}`));
    for (const name of names) await createChannel(prisma, name, 'all');
    const channel = count === 0 ? 'default' : POLLED;
    const { token } = await createToken(prisma, `bench-${tag}`, 'webshop', channel);
    const channelId = count === 0 ? null : (await prisma.channel.findUniqueOrThrow({ where: { name: POLLED } })).id;
    return { token, channelId };
  });
  return { ...result, setupS: seconds };
}

/** Records pending for a reader of channel `channelId` (null: default), counted row by row. */
async function countPending(client: Client, channelId: number | null): Promise<number> {
  const { rows } =
    channelId === null
      ? await client.query<{ n: number }>('SELECT count(*)::int AS n FROM products WHERE pending')
      : await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM products AS t
             LEFT JOIN channel_acks AS a ON a.channel_id = $1 AND a.table_name = 'products' AND a.record_id = t.id
            WHERE (t.updated_at, t.id) > (SELECT stamp, record_id FROM channel_cursors c WHERE c.channel_id = $1 AND c.table_name = 'products')
              AND (a.acked_revision IS NULL OR a.acked_revision < t.revision)`,
          [channelId],
        );
  return rows[0]!.n;
}

export type Poll1mRound = {
  round: number;
  load: number;
  phases: Record<Phase, { poll: HttpLoad; total: number; counted: number; setupS: number }>;
};

export async function runPoll1m(
  provider: Provider,
): Promise<{ results: Result[]; rounds: Poll1mRound[]; rows: ChannelsRow[]; seedS: number }> {
  const label = PROVIDER_LABEL[provider];
  const running = await startOn(provider);
  const prisma = prismaOn(running.databaseUrl);
  const client = new Client({ connectionString: running.databaseUrl });
  await client.connect();
  const rounds: Poll1mRound[] = [];
  let seedS: number;
  try {
    seedS = (await timed(() => seedPendingBySql(running.databaseUrl, POLL_RECORDS))).seconds;
    // The service's first seconds of polling (V8 compiling the path) count for none of the phases.
    await poll(running.service, running.service.token, 3 * WARM_SECONDS);
    for (let round = 1; round <= ROUNDS; round++) {
      const load = loadNow();
      const order = [...PHASES.slice((round - 1) % 3), ...PHASES.slice(0, (round - 1) % 3)];
      const phases: Partial<Poll1mRound['phases']> = {};
      for (const phase of order) {
        const { token, channelId, setupS } = await setUpPhase(prisma, phase, `${provider}-${round}-${phase.replace(' ', '-')}`);
        const total = await metaTotal(running.service, token);
        const counted = await countPending(client, channelId);
        if (total !== counted || counted !== POLL_RECORDS)
          throw new Error(`channels/poll-1m ${phase}: meta.total ${total}, counted ${counted}, seeded ${POLL_RECORDS}`);
        if (WARM_SECONDS > 0) await poll(running.service, token, WARM_SECONDS);
        phases[phase] = { poll: await poll(running.service, token), total, counted, setupS };
      }
      const r: Poll1mRound = { round, load, phases: phases as Poll1mRound['phases'] };
      log(
        `channels/poll-1m ${label} round ${round} (${order.join(' → ')}): ` +
          PHASES.map(
            (p) =>
              `${p} ${r.phases[p].poll.reqPerSec.toFixed(0)} req/s (p99 ${r.phases[p].poll.p99Ms} ms, set up in ${r.phases[p].setupS.toFixed(1)} s)`,
          ).join(', ') +
          `; meta.total = count = ${POLL_RECORDS.toLocaleString('en')}; load ${load}`,
      );
      rounds.push(r);
    }
  } finally {
    await client.end();
    await prisma.$disconnect();
    await running.stop();
  }
  const scenario = `channels/poll-1m (${label})`;
  const records = `${POLL_RECORDS / 1_000_000}M`;
  const pair = (value: Phase, baseline: Phase) =>
    rounds.map((r) => ({ value: r.phases[value].poll.reqPerSec, baseline: r.phases[baseline].poll.reqPerSec }));
  const ten = roundRatioResult(
    scenario,
    `poll req/s on one of ${CHANNELS} channels, ${records} records pending, ${CONNECTIONS} connections`,
    pair('ten channels', 'default alone'),
    0.9,
    `channel default alone over the same ${records} records`,
  );
  const tenVsOne = roundRatioResult(
    scenario,
    `poll req/s on one of ${CHANNELS} channels against a single non-default channel`,
    pair('ten channels', 'one channel'),
    0.9,
    'a single non-default channel',
  );
  const date = new Date().toISOString();
  const loads = rounds.map((r) => r.load);
  const base = {
    key: 'poll-1m' as const,
    provider: label,
    date,
    build: buildOf(SERVICE_ROOT),
    load: `${Math.min(...loads)}–${Math.max(...loads)}`,
  };
  return {
    seedS,
    rounds,
    results: [
      strip(ten),
      strip(tenVsOne),
      infoResult(
        scenario,
        `poll req/s, channel default alone over ${records}`,
        median(rounds.map((r) => r.phases['default alone'].poll.reqPerSec)),
      ),
      infoResult(
        scenario,
        `poll req/s, a single non-default channel over ${records}`,
        median(rounds.map((r) => r.phases['one channel'].poll.reqPerSec)),
      ),
      ...PHASES.map((p) => infoResult(scenario, `poll p99 ms, ${p}`, median(rounds.map((r) => r.phases[p].poll.p99Ms)))),
    ],
    rows: [
      {
        ...base,
        row: `poll on 1 of ${CHANNELS} channels, ${records} records (all pending, meta.total = count checked), ${CONNECTIONS} conn.`,
        baseline: `${n0(ten.baseline!)} req/s (default alone, no other channel)`,
        channels: `${n0(ten.value)} req/s`,
        ratio: `${n2(ten.ratio!)} (${n2(ten.range[0])}–${n2(ten.range[1])})`,
        target: '≥ 0.9 × the single-channel poll',
        met: ten.pass!,
      },
      {
        ...base,
        row: `the same against a single non-default channel (no target of its own)`,
        baseline: `${n0(tenVsOne.baseline!)} req/s (1 channel besides default)`,
        channels: `${n0(tenVsOne.value)} req/s`,
        ratio: `${n2(tenVsOne.ratio!)} (${n2(tenVsOne.range[0])}–${n2(tenVsOne.range[1])})`,
        target: '≥ 0.9 × (same bar)',
        met: tenVsOne.pass!,
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// push: a 10,000-stock push with ten channels

/** Each channel's stock count against a count of its pending rows, and the acknowledgement rows there are. */
async function checkStockCounts(client: Client): Promise<{ acks: number; deltaRows: number; pendingPerChannel: number[] }> {
  const { rows } = await client.query<{ channel_id: number; counted: number; summed: number }>(
    `SELECT c.channel_id,
            (SELECT count(*)::int FROM stocks AS t
               LEFT JOIN channel_acks AS a ON a.channel_id = c.channel_id AND a.table_name = 'stocks' AND a.record_id = t.id
              WHERE (t.updated_at, t.id) > (c.stamp, c.record_id) AND (a.acked_revision IS NULL OR a.acked_revision < t.revision)) AS counted,
            (SELECT COALESCE(sum(delta), 0)::int FROM channel_pending_deltas AS d WHERE d.channel_id = c.channel_id AND d.table_name = 'stocks') AS summed
       FROM channel_cursors AS c WHERE c.table_name = 'stocks' ORDER BY c.channel_id`,
  );
  const wrong = rows.filter((r) => r.counted !== r.summed);
  if (wrong.length > 0) throw new Error(`channel counts differ from the rows: ${JSON.stringify(wrong)}`);
  const acks = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM channel_acks WHERE table_name = 'stocks'`)).rows[0]!.n;
  const deltaRows = (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM channel_pending_deltas WHERE table_name = 'stocks'`))
    .rows[0]!.n;
  return { acks, deltaRows, pendingPerChannel: rows.map((r) => r.counted) };
}

const pushRound = (service: Service, first: number): Promise<number> =>
  serviceStockUpsertRound(service, first, { supplier: 'SUP-channels', requests: PUSHES });

export type PushRound = { round: number; load: number; alone: number; channels: number };

export async function runPush(
  provider: Provider,
): Promise<{ results: Result[]; rounds: PushRound[]; rows: ChannelsRow[]; checks: unknown }> {
  const label = PROVIDER_LABEL[provider];
  const alone = await startOn(provider);
  let withChannels: Running | undefined;
  const rounds: PushRound[] = [];
  let checks: unknown;
  try {
    withChannels = await startOn(provider);
    const sides = { alone, channels: withChannels };
    // Batch 0 creates the rows; then the channels; then two pushes move every row above every cursor.
    for (const side of Object.values(sides)) await api(side.service, 'POST', '/api/v1/stocks', { stocks: stockBatch('SUP-channels', 0) });
    const prisma = prismaOn(withChannels.databaseUrl);
    try {
      for (let i = 0; i < CHANNELS; i++) await createChannel(prisma, `shop-${i}`, PUSH_FROM);
    } finally {
      await prisma.$disconnect();
    }
    for (const side of Object.values(sides))
      for (const k of [1, 2]) await api(side.service, 'POST', '/api/v1/stocks', { stocks: stockBatch('SUP-channels', k) });
    const before = await withClient(withChannels.databaseUrl, checkStockCounts);
    let next = 3;
    for (let round = 1; round <= ROUNDS; round++) {
      const load = loadNow();
      const order = round % 2 === 1 ? (['alone', 'channels'] as const) : (['channels', 'alone'] as const);
      const got: Partial<Record<'alone' | 'channels', number>> = {};
      for (const which of order) got[which] = await pushRound(sides[which].service, next);
      next += PUSHES;
      const r: PushRound = { round, load, alone: got.alone!, channels: got.channels! };
      log(
        `channels/push ${label} round ${round}: ${CHANNELS} channels ${r.channels.toFixed(0)} rows/s, default alone ${r.alone.toFixed(0)} rows/s ` +
          `(${(r.channels / r.alone).toFixed(2)} ×); load ${load}`,
      );
      rounds.push(r);
    }
    const after = await withClient(withChannels.databaseUrl, checkStockCounts);
    if (after.acks !== before.acks) throw new Error(`the pushes wrote acknowledgement rows: ${before.acks} → ${after.acks}`);
    if (after.pendingPerChannel.some((n) => n !== ENTRIES))
      throw new Error(`pending per channel ${after.pendingPerChannel.join(',')}, expected ${ENTRIES}`);
    checks = {
      channels: CHANNELS,
      from: PUSH_FROM,
      channelAcksRows: after.acks,
      pendingPerChannel: after.pendingPerChannel,
      deltaRowsBefore: before.deltaRows,
      deltaRowsAfter: after.deltaRows,
      pushes: ROUNDS * PUSHES,
    };
    log(`channels/push ${label}: ${JSON.stringify(checks)}`);
  } finally {
    await withChannels?.stop();
    await alone.stop();
  }
  const scenario = `channels/push (${label})`;
  const result = roundRatioResult(
    scenario,
    `stock push rows/s (10,000 per request, half changed) with ${CHANNELS} channels (--from ${PUSH_FROM})`,
    rounds.map((r) => ({ value: r.channels, baseline: r.alone })),
    0.8,
    'the same pushes with channel default alone',
  );
  const loads = rounds.map((r) => r.load);
  return {
    checks,
    rounds,
    results: [strip(result)],
    rows: [
      {
        key: 'push',
        row: `push of 10,000 stocks (half changed) with ${CHANNELS} channels (--from ${PUSH_FROM}, ack rows for every stock), ${PUSHES} pushes a round`,
        provider: label,
        baseline: `${n0(result.baseline!)} rows/s (default alone)`,
        channels: `${n0(result.value)} rows/s`,
        ratio: `${n2(result.ratio!)} (${n2(result.range[0])}–${n2(result.range[1])})`,
        target: '≥ 0.8 × the single-channel push',
        met: result.pass!,
        date: new Date().toISOString(),
        build: buildOf(SERVICE_ROOT),
        load: `${Math.min(...loads)}–${Math.max(...loads)}`,
      },
    ],
  };
}
