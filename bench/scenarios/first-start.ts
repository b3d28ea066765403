/**
 * first-start (issue 29): the very first start of `serve` on an empty DATA_DIR, which now runs
 * initdb, creates the database and applies every migration; then a restart on the directory it
 * made (SIGTERM, start again). The build under test and the previous build (PGlite, whose first
 * start copied a pre-initialised store) side by side, the order alternating each round. Readings:
 * spawn → listening, spawn → `/ready` 200, and the memory of the whole service until 10 s after
 * listening — PSS summed over Node's process tree (initdb and its postgres run as its children)
 * and the postmaster's tree (found through postmaster.pid), sampled every 50 ms — and Node's own
 * peak RSS (VmHWM), as the PGlite-era bench measured it.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { infoResult, log, median, ROUNDS, type Result } from '../lib/measure';
import { peakMemory, serviceMemory } from '../lib/memory';
import { baseEnv, PREVIOUS_ROOT, SERVICE_ROOT, spawnServe, stopOrphanedCluster } from '../lib/service';

const SETTLE_MS = 10_000;

export type StartSample = {
  build: 'embedded' | 'previous';
  kind: 'first start' | 'restart';
  round: number;
  listenMs: number;
  readyMs: number;
  peakPssMb: number;
  pssAfter10sMb: number;
  nodePeakRssMb: number;
  load: number;
};

const vmHwmMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

async function start(build: StartSample['build'], kind: StartSample['kind'], round: number, dataDir: string): Promise<StartSample> {
  const root = build === 'embedded' ? SERVICE_ROOT : PREVIOUS_ROOT!;
  const env = baseEnv({ backend: 'embedded' }, dataDir);
  delete env.DATABASE_URL;
  const load = Number(loadavg()[0]!.toFixed(2));
  let child: ChildProcess | undefined;
  const started = performance.now();
  const read = () => (child?.pid ? serviceMemory(child.pid, dataDir) : { pssMb: 0, rootRssMb: 0, rootPssMb: 0, processes: 0 });
  try {
    const { result, peakPssMb } = await peakMemory(
      read,
      async () => {
        const { url } = await spawnServe(env, { root, nodeArgs: [], onSpawn: (c) => (child = c) });
        const listenMs = performance.now() - started;
        while ((await fetch(`${url}/ready`).catch(() => undefined))?.status !== 200) await sleep(20);
        const readyMs = performance.now() - started;
        await sleep(Math.max(0, SETTLE_MS - (performance.now() - started - listenMs)));
        return { listenMs, readyMs };
      },
      50,
    );
    child!.stdout!.resume();
    const sample: StartSample = {
      build,
      kind,
      round,
      ...result,
      peakPssMb,
      pssAfter10sMb: read().pssMb,
      nodePeakRssMb: vmHwmMb(child!.pid!),
      load,
    };
    log(
      `first-start ${build} ${kind} round ${round}: listening ${sample.listenMs.toFixed(0)} ms, ready ${sample.readyMs.toFixed(0)} ms, ` +
        `peak PSS ${sample.peakPssMb.toFixed(0)} MB, PSS 10 s after listening ${sample.pssAfter10sMb.toFixed(0)} MB, Node peak RSS ${sample.nodePeakRssMb.toFixed(0)} MB (load ${load})`,
    );
    return sample;
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

export async function runFirstStart(): Promise<{ results: Result[]; samples: StartSample[] }> {
  const builds: Array<StartSample['build']> = PREVIOUS_ROOT ? ['embedded', 'previous'] : ['embedded'];
  const samples: StartSample[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? builds : [...builds].reverse();
    for (const build of order) {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'sgw-first-'));
      try {
        samples.push(await start(build, 'first start', round, dataDir));
        samples.push(await start(build, 'restart', round, dataDir));
      } finally {
        await stopOrphanedCluster(dataDir);
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }
  const med = (build: StartSample['build'], kind: StartSample['kind'], pick: (s: StartSample) => number) => {
    const xs = samples.filter((s) => s.build === build && s.kind === kind).map(pick);
    return xs.length ? Number(median(xs).toFixed(1)) : null;
  };
  const row = (kind: StartSample['kind'], metric: string, pick: (s: StartSample) => number): Result => ({
    ...infoResult('first-start', `${kind}: ${metric} (baseline: previous build)`, med('embedded', kind, pick)!),
    baseline: med('previous', kind, pick),
  });
  return {
    samples,
    results: (['first start', 'restart'] as const).flatMap((kind) => [
      row(kind, 'spawn → listening ms', (s) => s.listenMs),
      row(kind, 'spawn → /ready ms', (s) => s.readyMs),
      row(kind, 'peak PSS MB, Node + cluster', (s) => s.peakPssMb),
      row(kind, 'PSS MB 10 s after listening, Node + cluster', (s) => s.pssAfter10sMb),
      row(kind, 'peak RSS MB of the Node process (VmHWM)', (s) => s.nodePeakRssMb),
    ]),
  };
}
