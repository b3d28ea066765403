import { readdirSync, readFileSync } from 'node:fs';
import { Client } from 'pg';
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

/** CPU seconds per thread name of a process: `main`, then by name (worker threads and V8's helpers are all `node`). */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND);
    } catch {
      // the thread ended meanwhile
    }
  }
  return byName;
}

/**
 * CPU seconds used so far by each PostgreSQL backend connected to `database` (default: the
 * client's own), by pid, when the server runs on this machine (its processes readable in /proc);
 * `listed` counts the backends PostgreSQL named, readable or not.
 */
export async function backendCpuSeconds(client: Client, database?: string): Promise<{ byPid: Map<number, number>; listed: number }> {
  const { rows } = await client.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = coalesce($1, current_database()) AND pid <> pg_backend_pid()',
    [database ?? null],
  );
  const byPid = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      byPid.set(pid, processCpuSeconds(pid));
    } catch {
      // a backend that ended meanwhile, or a server on another machine
    }
  }
  return { byPid, listed: rows.length };
}

/** The backends' CPU seconds between two readings: one that ended in between is left out, a new one counts whole. */
export function backendCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let seconds = 0;
  for (const [pid, used] of after) seconds += used - (before.get(pid) ?? 0);
  return seconds;
}

/**
 * CPU seconds used so far by the PostgreSQL backends connected to the database of `url`, when the
 * server runs on this machine; undefined otherwise. Backends that ended meanwhile are not counted:
 * compare across a stretch where the pools keep their connections.
 */
export async function databaseCpuSeconds(url: string): Promise<number | undefined> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { byPid, listed } = await backendCpuSeconds(client);
    let seconds = 0;
    for (const used of byPid.values()) seconds += used;
    return byPid.size > 0 || listed === 0 ? seconds : undefined;
  } finally {
    await client.end();
  }
}
