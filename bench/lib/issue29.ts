/**
 * Issue 29's targets as rows of the "Issue 29: one engine" table in bench/RESULTS.md: from the
 * rounds of each scenario, the value (median), its range over rounds, the baseline measured in the
 * same run, met or not (on the median), and one line on the method.
 */
import type { CrashRound } from '../scenarios/crash-restart';
import type { DurabilityRound } from '../scenarios/embedded-durability';
import { PREVIOUS_KIND } from './service';
import type { LatencyRound } from '../scenarios/embedded-latency';
import type { VersusRound } from '../scenarios/embedded-vs-server';
import type { StartSample } from '../scenarios/first-start';
import type { SoakSummary } from '../scenarios/soak';
import { median } from './measure';
import type { Issue29Row } from './report';

const n0 = (x: number) => Math.round(x).toLocaleString('en');
const n2 = (x: number) => x.toFixed(2);
const range = (xs: number[], f: (x: number) => string = n0) => (xs.length ? `${f(Math.min(...xs))}–${f(Math.max(...xs))}` : '—');
const medRange = (xs: number[], f: (x: number) => string = n0) => (xs.length ? `${f(median(xs))} (${range(xs, f)})` : 'not run');

export function latencyRows(rounds: LatencyRound[], date: string): Issue29Row[] {
  const mine = rounds.filter((r) => r.build === 'embedded');
  const previous = rounds.filter((r) => r.build === 'previous');
  const method =
    `this build and the previous one (PGlite) alternately, each on a fresh DATA_DIR with 10,000 pending products: poll at 4 connections ` +
    `and /health at 1 for ${mine.length ? 'the same 20 s' : '20 s'} while 10,000-stock pushes run back to back; autocannon p99; ${mine.length} rounds each`;
  const row = (key: Issue29Row['key'], target: string, limit: number, pick: (r: LatencyRound) => number): Issue29Row => ({
    key,
    target,
    value: `${n0(median(mine.map(pick)))} ms`,
    range: `${range(mine.map(pick))} ms`,
    baseline: `previous build ${medRange(previous.map(pick))} ms`,
    met: median(mine.map(pick)) <= limit,
    method,
    date,
  });
  return [
    row('poll-p99', 'embedded poll p99 at 4 connections during 10,000-stock pushes ≤ 50 ms', 50, (r) => r.poll.p99Ms),
    row('health-p99', '`/health` p99 during the same ≤ 10 ms', 10, (r) => r.health.p99Ms),
  ];
}

export function versusRows(rounds: VersusRound[], date: string): Issue29Row[] {
  const spec = {
    poll: {
      key: 'poll-rate',
      target: "embedded poll rate ≥ 0.9 × the same poll on the machine's PostgreSQL",
      unit: 'req/s',
      what: 'the poll at 64 connections, 20 s, 10,000 pending',
    },
    'stock-upsert': {
      key: 'stock-upsert',
      target: 'stock-upsert on the embedded store ≥ 0.9 × the external server',
      unit: 'rows/s',
      what: '20 pushes of 10,000 stocks, half changed, per round',
    },
    'product-sync': {
      key: 'product-sync',
      target: 'product-sync on the embedded store ≥ 0.9 × the external server',
      unit: 'products/s',
      what: '4 × 10 pushes of 500 products with 2 price entries, 1 in 10 renamed, per round (harmonic mean)',
    },
  } as const;
  return (['poll', 'stock-upsert', 'product-sync'] as const).flatMap((workload) => {
    const of = rounds.filter((r) => r.workload === workload);
    if (of.length === 0) return [];
    const s = spec[workload];
    const ratio = median(of.map((r) => r.embedded / r.server));
    return [
      {
        key: s.key,
        target: s.target,
        value: `${n2(ratio)} × (${n0(median(of.map((r) => r.embedded)))} ${s.unit})`,
        range: `${range(
          of.map((r) => r.embedded / r.server),
          n2,
        )} × per round`,
        baseline: `PostgreSQL 15 on loopback ${medRange(of.map((r) => r.server))} ${s.unit}`,
        met: ratio >= 0.9,
        method: `same build, one service on each store at once, rounds alternating which goes first: ${s.what}; ${of.length} rounds; median of the rounds' ratios`,
        date,
      },
    ];
  });
}

export function soakRows(summaries: SoakSummary[], minutes: number, rate: number, date: string): Issue29Row[] {
  const main = summaries.find((s) => s.label === 'embedded')!;
  const previous = summaries.find((s) => s.label === 'previous build');
  const alongside = previous
    ? `the previous build (${PREVIOUS_KIND}) ran the same workload at the same time on its own DATA_DIR`
    : 'no previous build alongside';
  const method = `bench/scenarios/soak.ts, ${minutes} min at ${rate}× issue 20's rate; PSS summed over Node's tree and the postmaster's (smaps_rollup, every 250 ms); ${alongside}`;
  const prev = (f: (s: SoakSummary) => string) => (previous ? `previous build (${PREVIOUS_KIND}) ${f(previous)}` : '—');
  return [
    {
      key: 'idle',
      target: 'memory of the whole service (Node + cluster PSS) idle ≤ 230 MB',
      value: `${n0(Math.max(main.idleStartPssMb, main.idleEndPssMb))} MB`,
      range:
        `after start ${n0(main.idleStartPssMb)} (Node ${n0(main.idleStartNodePssMb)} + cluster ${n0(main.idleStartPssMb - main.idleStartNodePssMb)}), ` +
        `30 s after the soak ${n0(main.idle30sPssMb)}, 60 s after ${n0(main.idleEndPssMb)} (Node ${n0(main.idleEndNodePssMb)} + cluster ${n0(main.idleEndPssMb - main.idleEndNodePssMb)}) MB`,
      baseline: prev(
        (s) =>
          `PSS ${n0(s.idleStartPssMb)} after start, ${n0(s.idleEndPssMb)} MB 60 s after (Node RSS ${n0(s.idleStartRssMb)} / ${n0(s.idleEndRssMb)})`,
      ),
      met: Math.max(main.idleStartPssMb, main.idleEndPssMb) <= 230,
      method,
      date,
    },
    {
      key: 'peak',
      target: 'memory of the whole service peak ≤ 350 MB in the soak',
      value: `${n0(main.peakPssMb)} MB`,
      range: `one soak; at the peak Node ${n0(main.peakNodePssMb)} + cluster ${n0(main.peakPssMb - main.peakNodePssMb)} MB (Node RSS alone peaked at ${n0(main.peakRssMb)})`,
      baseline: prev((s) => `PSS ${n0(s.peakPssMb)} MB (Node RSS ${n0(s.peakRssMb)})`),
      met: main.peakPssMb <= 350,
      method,
      date,
    },
    {
      key: 'data-dir',
      target: `DATA_DIR at the end ≤ 1.5 × its size at 5 minutes (issue: over 2 hours; this soak: ${minutes} min)`,
      value: `${n2(main.dataDirEndMb / main.dataDirReferenceMb)} ×`,
      range: `${n0(main.dataDirReferenceMb)} MB at minute ${main.referenceMinute.toFixed(1)} → ${n0(main.dataDirEndMb)} MB at ${minutes} min (max ${n0(main.dataDirMaxMb)}, WAL max ${n0(main.walMaxMb)})`,
      baseline: prev((s) => `${n2(s.dataDirEndMb / s.dataDirReferenceMb)} × (${n0(s.dataDirReferenceMb)} → ${n0(s.dataDirEndMb)} MB)`),
      met: main.dataDirEndMb / main.dataDirReferenceMb <= 1.5,
      method: `${method}; ${minutes} min measured, nothing extrapolated to 2 hours`,
      date,
    },
  ];
}

export function restartRows(rounds: CrashRound[], records: number, date: string): Issue29Row[] {
  const of = (v: CrashRound['variant']) => rounds.filter((r) => r.variant === v);
  const killed = of('embedded, service killed');
  const whole = of('embedded, service and cluster killed');
  const previous = of('previous build, service killed');
  const base = previous.length ? `previous build (${PREVIOUS_KIND}) ${medRange(previous.map((r) => r.readyMs))} ms` : '—';
  const method =
    `built server (dist/), ${records.toLocaleString('en')} pending products, a poll loop (4 clients) and a push loop (200 renames a request) running; ` +
    `kill -9 with a push in flight, spawn → GET /ready 200; variants interleaved, ${killed.length} rounds each`;
  const row = (key: Issue29Row['key'], target: string, list: CrashRound[]): Issue29Row => ({
    key,
    target,
    value: `${n0(median(list.map((r) => r.readyMs)))} ms`,
    range: `${range(list.map((r) => r.readyMs))} ms`,
    baseline: base,
    met: list.length > 0 && median(list.map((r) => r.readyMs)) <= 3000,
    method,
    date,
  });
  const all = [...killed, ...whole];
  return [
    row('restart', 'restart after `kill -9` of the service, 100,000 records: ready ≤ 3 s', killed),
    row('restart-cluster-killed', 'the same with the cluster killed too (crash recovery; not in the issue)', whole),
    {
      key: 'lost',
      target: 'nothing lost over those restarts',
      value: `${all.reduce((s, r) => s + r.lost, 0)} records lost`,
      range: `${all.reduce((s, r) => s + r.pushesAcknowledged, 0).toLocaleString('en')} acknowledged pushes re-checked; pending total ${[...new Set(all.map((r) => r.pendingAfter))].join('/')} after each`,
      baseline: previous.length ? `previous build ${previous.reduce((s, r) => s + r.lost, 0)} lost` : '—',
      met: all.every((r) => r.lost === 0 && r.pendingAfter === records),
      method: 'every push answered 2xx before the kill is pushed again after the restart and must come back with created 0, updated 0',
      date,
    },
  ];
}

export function firstStartRows(samples: StartSample[], date: string): Issue29Row[] {
  const of = (build: StartSample['build']) => samples.filter((s) => s.build === build && s.kind === 'first start');
  const mine = of('embedded');
  const previous = of('previous');
  return [
    {
      key: 'first-start',
      target: 'first start on an empty DATA_DIR (initdb, migrations): spawn → /ready; peak PSS (no target)',
      value: `${n0(median(mine.map((s) => s.readyMs)))} ms; ${n0(median(mine.map((s) => s.peakPssMb)))} MB`,
      range: `${range(mine.map((s) => s.readyMs))} ms; ${range(mine.map((s) => s.peakPssMb))} MB`,
      baseline: previous.length
        ? `previous build ${n0(median(previous.map((s) => s.readyMs)))} ms (${range(previous.map((s) => s.readyMs))}); ${n0(median(previous.map((s) => s.peakPssMb)))} MB (${range(previous.map((s) => s.peakPssMb))})`
        : '—',
      met: null,
      method: `spawn of the built server on an empty DATA_DIR; PSS of Node's tree (initdb included) + the postmaster's, every 50 ms until 10 s after listening; ${mine.length} rounds each, alternating`,
      date,
    },
  ];
}

export function durabilityRows(rounds: DurabilityRound[], date: string): Issue29Row[] {
  const on = rounds.map((r) => r.on);
  const off = rounds.map((r) => r.off);
  return [
    {
      key: 'durability',
      target: 'cost of `synchronous_commit` (EMBEDDED_FSYNC=true, the default; no target)',
      value: `stock-upsert ${n0(median(on.map((r) => r.stockRowsPerS)))} rows/s; 1-product POST p50 ${median(on.map((r) => r.p50Ms)).toFixed(1)} ms`,
      range: `${range(on.map((r) => r.stockRowsPerS))} rows/s; ${range(
        on.map((r) => r.p50Ms),
        (x) => x.toFixed(1),
      )} ms`,
      baseline: `EMBEDDED_FSYNC=false: ${n0(median(off.map((r) => r.stockRowsPerS)))} rows/s; p50 ${median(off.map((r) => r.p50Ms)).toFixed(1)} ms`,
      met: null,
      method: `two embedded services at once (on, off), rounds alternating: 20 pushes of 10,000 stocks, then 200 single-product POSTs one after the other; ${rounds.length} rounds`,
      date,
    },
  ];
}
