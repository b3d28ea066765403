import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Result } from './measure';

const START = '<!-- results:start -->';
const END = '<!-- results:end -->';

const fmt = (x: number | null) =>
  x === null ? '' : Number.isInteger(x) ? x.toLocaleString('en') : x.toLocaleString('en', { maximumFractionDigits: 3 });

/** Writes bench/results.json and the generated table inside bench/RESULTS.md (the prose around it is kept). */
export function writeReport(
  dir: string,
  results: Result[],
  context: Record<string, unknown>,
  embedded: Array<{ scenario: string; metric: string; value: number }>,
): void {
  writeFileSync(path.join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(path.join(dir, 'run.json'), `${JSON.stringify({ ...context, embedded }, null, 2)}\n`);
  const rows = results.map(
    (r) =>
      `| ${r.scenario} | ${r.metric} | ${fmt(r.value)} | ${fmt(r.baseline)} | ${fmt(r.ratio)} | ${r.target ?? ''} | ${r.pass === null ? '' : r.pass ? 'yes' : '**no**'} |`,
  );
  const table = [
    START,
    `Run of ${context.date} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${context.postgres}; ${context.rounds} rounds per scenario, medians. Raw data: \`bench/results.json\`, \`bench/run.json\`.`,
    '',
    '| scenario | metric | service | baseline | ratio | target | pass |',
    '|---|---|---:|---:|---:|---|---|',
    ...rows,
    '',
    'Embedded PGlite backend (the same service with no `DATABASE_URL`; no target):',
    '',
    '| scenario | metric | service |',
    '|---|---|---:|',
    ...embedded.map((e) => `| ${e.scenario} | ${e.metric} | ${fmt(Math.round(e.value))} |`),
    END,
  ].join('\n');
  replaceBetween(path.join(dir, 'RESULTS.md'), START, END, table);
  // The README quotes a short headline of the same run; the table is in RESULTS.md.
  replaceBetween(
    path.join(dir, '..', 'README.md'),
    HEADLINE_START,
    HEADLINE_END,
    `${HEADLINE_START}\n${headline(results, String(context.date))}\n${HEADLINE_END}`,
  );
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

/** The poll-peers columns, as the scenario names them in its metrics. */
const POLL_PEERS = [
  ['REST', 'REST'],
  ['GraphQL', 'GraphQL'],
  ['PostGraphile, view', 'PostGraphile over a plain view'],
  ['PostGraphile, function', "PostGraphile's equally safe function"],
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
