import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Result } from './measure';

const START = '<!-- results:start -->';
const END = '<!-- results:end -->';

const fmt = (x: number | null) =>
  x === null ? '' : Number.isInteger(x) ? x.toLocaleString('en') : x.toLocaleString('en', { maximumFractionDigits: 3 });

/** Which scenarios a run covered, when. */
type RunStamp = { date: string; scenarios: string[] | 'all' };

/**
 * Writes bench/results.json, bench/run.json and the generated tables inside bench/RESULTS.md (the
 * prose around them is kept). A full run replaces everything and quotes its headline in the README.
 * A partial run (`ran`: the scenarios of BENCH_ONLY, with BENCH_WRITE=1) replaces only the rows and
 * details of its scenarios, keeps the others, says in the table which run each came from, and
 * leaves the README alone.
 */
export function writeReport(
  dir: string,
  results: Result[],
  context: {
    date: string;
    postgres: string;
    rounds: number;
    details: Record<string, unknown>;
    issue29?: Issue29Row[];
    issue31?: Issue31Row[];
  },
  ran?: string[],
): void {
  const resultsFile = path.join(dir, 'results.json');
  const runFile = path.join(dir, 'run.json');
  let merged = results;
  let details = context.details;
  let runs: RunStamp[] = [{ date: context.date, scenarios: ran ?? 'all' }];
  let issue29 = context.issue29 ?? [];
  let issue31 = context.issue31 ?? [];
  if (ran) {
    const before = readJson<Result[]>(resultsFile, []);
    const previous = readJson<{
      details?: Record<string, unknown>;
      runs?: RunStamp[];
      date?: string;
      issue29?: Issue29Row[];
      issue31?: Issue31Row[];
    }>(runFile, {});
    const mine = new Set(results.map((r) => r.scenario));
    // In place of the old rows of the same scenario, in the old order; new scenarios at the end.
    merged = [];
    const placed = new Set<string>();
    for (const row of before) {
      if (!mine.has(row.scenario)) merged.push(row);
      else if (!placed.has(row.scenario)) {
        placed.add(row.scenario);
        merged.push(...results.filter((r) => r.scenario === row.scenario));
      }
    }
    merged.push(...results.filter((r) => !placed.has(r.scenario)));
    details = { ...previous.details, ...context.details };
    runs = [...(previous.runs ?? (previous.date ? [{ date: previous.date, scenarios: 'all' as const }] : [])), ...runs];
    const targets = new Set(issue29.map((r) => r.target));
    issue29 = [...(previous.issue29 ?? []).filter((r) => !targets.has(r.target)), ...issue29];
    issue29.sort((a, b) => ISSUE29_ORDER.indexOf(a.key) - ISSUE29_ORDER.indexOf(b.key));
    issue31 = mergeIssue31(previous.issue31 ?? [], issue31);
  }
  writeFileSync(resultsFile, `${JSON.stringify(merged, null, 2)}\n`);
  writeFileSync(runFile, `${JSON.stringify({ ...context, details, runs, issue29, issue31 }, null, 2)}\n`);
  const rows = merged.map(
    (r) =>
      `| ${r.scenario} | ${r.metric} | ${fmt(r.value)} | ${fmt(r.baseline)} | ${fmt(r.ratio)} | ${r.target ?? ''} | ${r.pass === null ? '' : r.pass ? 'yes' : '**no**'} |`,
  );
  const provenance = ran
    ? ` Rows come from several runs: ${runs.map((r) => `${r.date} (${r.scenarios === 'all' ? 'every scenario' : r.scenarios.join(', ')})`).join('; ')}; a later run replaces the rows of the scenarios it ran.`
    : '';
  const table = [
    START,
    `Run of ${context.date} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${context.postgres}; ${context.rounds} rounds per scenario, medians. Raw data: \`bench/results.json\`, \`bench/run.json\`.${provenance}`,
    '',
    '| scenario | metric | service | baseline | ratio | target | pass |',
    '|---|---|---:|---:|---:|---|---|',
    ...rows,
    END,
  ].join('\n');
  replaceBetween(path.join(dir, 'RESULTS.md'), START, END, table);
  if (issue29.length > 0) replaceBetween(path.join(dir, 'RESULTS.md'), ISSUE29_START, ISSUE29_END, issue29Table(issue29));
  if (issue31.length > 0) replaceBetween(path.join(dir, 'RESULTS.md'), ISSUE31_START, ISSUE31_END, issue31Table(issue31));
  // The README quotes a short headline of a full run; the table is in RESULTS.md.
  if (!ran)
    replaceBetween(
      path.join(dir, '..', 'README.md'),
      HEADLINE_START,
      HEADLINE_END,
      `${HEADLINE_START}\n${headline(merged, String(context.date))}\n${HEADLINE_END}`,
    );
}

function readJson<T>(file: string, fallback: T): T {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return fallback;
  }
}

const ISSUE29_START = '<!-- issue29:start -->';
const ISSUE29_END = '<!-- issue29:end -->';

/** One target of issue 29 as RESULTS.md states it: the value, its range over rounds, the baseline, met or not, the method. */
export type Issue29Row = {
  key: (typeof ISSUE29_ORDER)[number];
  target: string;
  value: string;
  range: string;
  baseline: string;
  met: boolean | null;
  method: string;
  date: string;
};

export const ISSUE29_ORDER = [
  'poll-p99',
  'health-p99',
  'poll-rate',
  'stock-upsert',
  'product-sync',
  'idle',
  'peak',
  'data-dir',
  'restart',
  'restart-cluster-killed',
  'lost',
  'first-start',
  'durability',
] as const;

function issue29Table(rows: Issue29Row[]): string {
  return [
    ISSUE29_START,
    '| target | value | range over rounds | baseline (same run) | met | run | method |',
    '|---|---:|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.target} | ${r.value} | ${r.range} | ${r.baseline} | ${r.met === null ? '—' : r.met ? 'yes' : '**no**'} | ${r.date.slice(0, 16).replace('T', ' ')} | ${r.method} |`,
    ),
    ISSUE29_END,
  ].join('\n');
}

const ISSUE31_START = '<!-- issue31:start -->';
const ISSUE31_END = '<!-- issue31:end -->';

/** One cost row of issue 31 (channels) as the "Channels (issue 31)" section of RESULTS.md states it. */
export type Issue31Row = {
  key: 'poll-ack' | 'poll-1m' | 'push';
  row: string;
  provider: string;
  baseline: string;
  channels: string;
  ratio: string;
  target: string;
  met: boolean;
  date: string;
  /** The commit of src/ measured (and of the baseline build, when it is another). */
  build: string;
  /** 1-minute load average at the start of each round: lowest–highest. */
  load: string;
};

const ISSUE31_ORDER: ReadonlyArray<Issue31Row['key']> = ['poll-ack', 'poll-1m', 'push'];
const ISSUE31_PROVIDERS = ['PostgreSQL', 'embedded'];

/** A later run replaces the rows of the (row kind, provider) pairs it measured; rows kept in the table's order. */
export function mergeIssue31(before: Issue31Row[], now: Issue31Row[]): Issue31Row[] {
  const replaced = new Set(now.map((r) => `${r.key}|${r.provider}`));
  const rank = (r: Issue31Row) => ISSUE31_ORDER.indexOf(r.key) * 10 + ISSUE31_PROVIDERS.indexOf(r.provider);
  // A stable sort keeps each pair's rows in the order their run wrote them.
  return [...before.filter((r) => !replaced.has(`${r.key}|${r.provider}`)), ...now].sort((a, b) => rank(a) - rank(b));
}

function issue31Table(rows: Issue31Row[]): string {
  return [
    ISSUE31_START,
    '| row | provider | baseline | channels | ratio (range over rounds) | target | met? | run (build; 1-min load) |',
    '|---|---|---:|---:|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.row} | ${r.provider} | ${r.baseline} | ${r.channels} | ${r.ratio} | ${r.target} | ${r.met ? 'yes' : '**no**'} | ${r.date.slice(0, 16).replace('T', ' ')} (${r.build}; load ${r.load}) |`,
    ),
    ISSUE31_END,
  ].join('\n');
}

const HEADLINE_START = '<!-- headline:start -->';
const HEADLINE_END = '<!-- headline:end -->';

/**
 * How many targets the run met, issue 18's poll table (the service against its peers, when the run
 * has them), and each target missed, a line per scenario (the table and the method are in RESULTS.md).
 */
export function headline(results: Result[], date: string): string {
  const targeted = results.filter((r) => r.target !== null);
  const missed = targeted.filter((r) => !r.pass);
  const ratio = (r: Result) => (r.ratio === null ? '' : `${fmt(Number(r.ratio.toFixed(2)))} ×; `);
  const peers = pollPeersTable(results);
  const scenarios = [...new Set(missed.map((r) => r.scenario))];
  return [
    `Last full \`npm run bench\` (${date.slice(0, 10)}): ${targeted.length - missed.length} of ${targeted.length} targets met` +
      ` (table and method: \`bench/RESULTS.md\`).`,
    ...(peers.length > 0 ? ['', ...peers] : []),
    ...(missed.length > 0 ? ['', 'Missed:', ''] : []),
    ...scenarios.map(
      (scenario) =>
        `- ${scenario}: ` +
        missed
          .filter((r) => r.scenario === scenario)
          .map((r) => `${r.metric} ${fmt(r.value)} (${ratio(r)}target ${r.target})`)
          .join('; '),
    ),
  ].join('\n');
}

/**
 * The poll-peers columns, as the scenario names them in its metrics: the fair peer (the service's
 * own statement) first, then the unequal ones, labelled as such (issue 33).
 */
const POLL_PEERS = [
  ['REST', 'REST'],
  ['GraphQL', 'GraphQL'],
  ["PostGraphile, the service's statement (fair peer)", "PostGraphile function running the service's statement (the fair peer)"],
  ['PostGraphile, view (not as safe)', 'PostGraphile over a plain view'],
  ['PostGraphile, count(*) function (unequal cost)', 'PostGraphile as an integrator would first write it (count(*) each poll)'],
  ['raw node:http + pg', 'raw node:http + pg'],
] as const;

/** Poll req/s (p99 ms) of the service and its peers per connection count: the table issue 18 opens with. */
function pollPeersTable(results: Result[]): string[] {
  const peers = results.filter((r) => r.scenario === 'poll-peers');
  const connections = [...new Set(peers.flatMap((r) => /req\/s, (\d+) connections$/.exec(r.metric)?.[1] ?? []))];
  if (connections.length === 0) return [];
  const find = (label: string, what: 'req/s' | 'p99 ms', c: string) =>
    peers.find((r) => r.metric.startsWith(`${label} ${what}, ${c} connections`));
  const cell = (label: string, c: string) => {
    const rate = find(label, 'req/s', c);
    const p99 = find(label, 'p99 ms', c);
    return rate === undefined ? '' : `${fmt(Math.round(rate.value))}${p99 === undefined ? '' : ` (${fmt(Math.round(p99.value))})`}`;
  };
  return [
    `| poll, req/s (p99 ms) | ${POLL_PEERS.map(([column]) => column).join(' | ')} |`,
    `|---|${POLL_PEERS.map(() => '---:').join('|')}|`,
    ...connections.map((c) => `| ${c} connections | ${POLL_PEERS.map(([, label]) => cell(label, c)).join(' | ')} |`),
  ];
}

function replaceBetween(file: string, start: string, end: string, block: string): void {
  const current = readFileSync(file, 'utf8');
  if (!current.includes(start) || !current.includes(end)) throw new Error(`${file} lacks the ${start} … ${end} markers`);
  writeFileSync(file, current.slice(0, current.indexOf(start)) + block + current.slice(current.indexOf(end) + end.length));
}
