import autocannon from 'autocannon';

export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** The nearest-rank percentile `p` (0–100) of values sorted in ascending order. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

/** One line of bench/results.json, as issue 6 asks. */
export type Result = {
  scenario: string;
  metric: string;
  value: number;
  baseline: number | null;
  ratio: number | null;
  target: string | null;
  pass: boolean | null;
};

const round = (x: number, digits = 3) => Number(x.toFixed(digits));

/** Higher is better: pass when value ≥ factor × baseline. */
export function ratioResult(
  scenario: string,
  metric: string,
  value: number,
  baseline: number,
  factor: number,
  baselineName: string,
): Result {
  const ratio = value / baseline;
  return {
    scenario,
    metric,
    value: round(value, 1),
    baseline: round(baseline, 1),
    ratio: round(ratio),
    target: `≥ ${factor} × ${baselineName}`,
    pass: ratio >= factor,
  };
}

/**
 * Higher is better, judged on the median of per-round ratios (issue 33): each round measures both
 * sides back to back, so a round's ratio is free of the drift between rounds; the range is kept.
 */
export function roundRatioResult(
  scenario: string,
  metric: string,
  rounds: ReadonlyArray<{ value: number; baseline: number }>,
  factor: number,
  baselineName: string,
): Result & { range: [number, number] } {
  const ratios = rounds.map((r) => r.value / r.baseline);
  const ratio = median(ratios);
  return {
    scenario,
    metric,
    value: round(median(rounds.map((r) => r.value)), 1),
    baseline: round(median(rounds.map((r) => r.baseline)), 1),
    ratio: round(ratio),
    target: `≥ ${factor} × ${baselineName} (median of per-round ratios, range ${round(Math.min(...ratios), 2)}–${round(Math.max(...ratios), 2)})`,
    pass: ratio >= factor,
    range: [round(Math.min(...ratios), 2), round(Math.max(...ratios), 2)],
  };
}

/** Lower is better: pass when value ≤ limit. */
export function limitResult(scenario: string, metric: string, value: number, limit: number, baseline: number | null = null): Result {
  return {
    scenario,
    metric,
    value: round(value, 1),
    baseline: baseline === null ? null : round(baseline, 1),
    ratio: null,
    target: `≤ ${limit}`,
    pass: value <= limit,
  };
}

export function infoResult(scenario: string, metric: string, value: number): Result {
  return { scenario, metric, value: round(value, 1), baseline: null, ratio: null, target: null, pass: null };
}

export type HttpLoad = { reqPerSec: number; p50Ms: number; p99Ms: number; timeouts: number; requests: number };

/** Closed-loop HTTP load (autocannon); any non-2xx answer fails the benchmark. */
export async function httpLoad(options: {
  url: string;
  connections: number;
  durationS: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Count requests that time out (10 s) instead of failing the run: the embedded store queues. */
  allowTimeouts?: boolean;
}): Promise<HttpLoad> {
  const r = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationS,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body ? { body: options.body } : {}),
  });
  const unexpected = options.allowTimeouts ? r.errors - r.timeouts : r.errors;
  if (r.non2xx > 0 || unexpected > 0)
    throw new Error(`${r.non2xx} non-2xx answers and ${r.errors} errors (${r.timeouts} timeouts) from ${options.url}`);
  return { reqPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, timeouts: r.timeouts, requests: r.requests.total };
}

export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number }> {
  const start = process.hrtime.bigint();
  const result = await work();
  return { result, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
}

export function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}
