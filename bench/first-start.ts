/**
 * The very first start of the embedded server on an empty DATA_DIR, build against build (not part
 * of `npm run bench`): the process's peak RSS (VmHWM, all threads) until it listens and 10 s
 * later, and the time from spawn to listening. Rounds alternate which build starts first; medians.
 *
 *   npx tsx bench/first-start.ts <root of build A> <root of build B> …
 *
 * A root is a directory with bin/, dist/, prisma/, package.json and node_modules (a copy of a built
 * checkout); each runs with `npm start`'s node flags and environment. BENCH_ROUNDS (default 4).
 * Linux only (/proc).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { median } from './lib/measure';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SETTLE_MS = 10_000;

type Sample = { listenMs: number; peakAtListenMb: number; peakMb: number; rssMb: number };

function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1]) / 1024;
}

async function firstStart(root: string): Promise<Sample> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sgw-first-'));
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', MALLOC_MMAP_THRESHOLD_: '131072' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--max-old-space-size=192', '--max-semi-space-size=16', path.join(root, 'bin', 'sync-gateway.js'), 'serve'],
    { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const closed = new Promise((resolve) => child.once('close', resolve));
  try {
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        output += d;
        if (output.includes('"sync-gateway listening"')) resolve();
      });
      child.stderr.on('data', (d: Buffer) => (output += d));
      child.once('close', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
    });
    const listenMs = performance.now() - started;
    const peakAtListenMb = status(child.pid!, 'VmHWM');
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return { listenMs, peakAtListenMb, peakMb: status(child.pid!, 'VmHWM'), rssMb: status(child.pid!, 'VmRSS') };
  } finally {
    child.kill('SIGTERM');
    await closed;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const roots = process.argv.slice(2).map((r) => path.resolve(r));
  if (roots.length === 0) throw new Error('usage: tsx bench/first-start.ts <build root> [<build root> …]');
  const samples = new Map<string, Sample[]>(roots.map((r) => [r, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts with the next build, so none always runs on a cold or warm machine.
    const order = roots.map((_, i) => roots[(i + round) % roots.length]!);
    for (const root of order) {
      const sample = await firstStart(root);
      samples.get(root)!.push(sample);
      const r = (n: number) => Math.round(n);
      console.log(
        `round ${round + 1} ${root}: listening after ${r(sample.listenMs)} ms, peak ${r(sample.peakAtListenMb)} MB then, ` +
          `${r(sample.peakMb)} MB after 10 s, RSS ${r(sample.rssMb)} MB (load ${loadavg()[0]!.toFixed(1)})`,
      );
    }
  }
  for (const [root, list] of samples) {
    const m = (pick: (s: Sample) => number) => Math.round(median(list.map(pick)));
    console.log(
      `${root}: median listening ${m((s) => s.listenMs)} ms, peak ${m((s) => s.peakMb)} MB ` +
        `(range ${Math.round(Math.min(...list.map((s) => s.peakMb)))}–${Math.round(Math.max(...list.map((s) => s.peakMb)))}), ` +
        `RSS after 10 s ${m((s) => s.rssMb)} MB`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
