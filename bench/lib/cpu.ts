import { readFileSync } from 'node:fs';
import type { Result } from './measure';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds (user + system, every thread) a process has used so far, read from /proc. */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU milliseconds per request of `pid` while `work` ran; `work` returns how many requests it made. */
export async function cpuMsPerRequest<T extends { requests: number }>(pid: number, work: () => Promise<T>): Promise<T & { cpuMs: number }> {
  const before = processCpuSeconds(pid);
  const result = await work();
  return { ...result, cpuMs: ((processCpuSeconds(pid) - before) * 1000) / Math.max(1, result.requests) };
}

/** Lower is better: pass when value ≤ factor × baseline (CPU per request against a baseline's). */
export function costResult(
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
    value: Number(value.toFixed(2)),
    baseline: Number(baseline.toFixed(2)),
    ratio: Number(ratio.toFixed(3)),
    target: `≤ ${factor} × ${baselineName}`,
    pass: ratio <= factor,
  };
}
