/**
 * The very first start of the embedded server on an empty DATA_DIR, build against build (not part
 * of `npm run bench`): the process's peak RSS (VmHWM, all threads) until it listens and 10 s
 * later, and the time from spawn to listening. Rounds alternate which build starts first; medians.
 *
 *   npx tsx bench/first-start.ts <root of build A> <root of build B> …
 *
 * A root is a directory with bin/, dist/, prisma/, package.json and node_modules (a copy of a built
 * checkout); each runs with `npm start`'s node flags and environment. BENCH_ROUNDS (default 4).
 * Each first start is followed by a restart on the same, now initialised, directory: the same
 * readings for a start with nothing to load or migrate. Linux only (/proc).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { median } from './lib/measure';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SETTLE_MS = 10_000;

type Sample = { listenMs: number; peakAtListenMb: number; rssAtListenMb: number; peakMb: number; rssMb: number };

function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1]) / 1024;
}

async function start(root: string, dataDir: string): Promise<Sample> {
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
    const rssAtListenMb = status(child.pid!, 'VmRSS');
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    return { listenMs, peakAtListenMb, rssAtListenMb, peakMb: status(child.pid!, 'VmHWM'), rssMb: status(child.pid!, 'VmRSS') };
  } finally {
    child.kill('SIGTERM');
    await closed;
  }
}

/** A first start on an empty directory, then a restart on the directory it made. */
async function firstStartAndRestart(root: string): Promise<{ first: Sample; restart: Sample }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sgw-first-'));
  try {
    const first = await start(root, dataDir);
    return { first, restart: await start(root, dataDir) };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const roots = process.argv.slice(2).map((r) => path.resolve(r));
  if (roots.length === 0) throw new Error('usage: tsx bench/first-start.ts <build root> [<build root> …]');
  const samples = new Map<string, { first: Sample[]; restart: Sample[] }>(roots.map((r) => [r, { first: [], restart: [] }]));
  const r = (n: number) => Math.round(n);
  const describe = (s: Sample) =>
    `listening after ${r(s.listenMs)} ms, RSS ${r(s.rssAtListenMb)} MB and peak ${r(s.peakAtListenMb)} MB then, ` +
    `peak ${r(s.peakMb)} MB and RSS ${r(s.rssMb)} MB after 10 s`;
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts with the next build, so none always runs on a cold or warm machine.
    const order = roots.map((_, i) => roots[(i + round) % roots.length]!);
    for (const root of order) {
      const { first, restart } = await firstStartAndRestart(root);
      samples.get(root)!.first.push(first);
      samples.get(root)!.restart.push(restart);
      console.log(`round ${round + 1} ${root} (load ${loadavg()[0]!.toFixed(1)})`);
      console.log(`  first start: ${describe(first)}`);
      console.log(`  restart:     ${describe(restart)}`);
    }
  }
  for (const [root, { first, restart }] of samples) {
    for (const [which, list] of [
      ['first start', first],
      ['restart', restart],
    ] as const) {
      const m = (pick: (s: Sample) => number) => r(median(list.map(pick)));
      const range = (pick: (s: Sample) => number) => `${r(Math.min(...list.map(pick)))}–${r(Math.max(...list.map(pick)))}`;
      console.log(
        `${root}, ${which}: median listening ${m((s) => s.listenMs)} ms, peak ${m((s) => s.peakMb)} MB (range ${range((s) => s.peakMb)}), ` +
          `RSS at listening ${m((s) => s.rssAtListenMb)} MB (${range((s) => s.rssAtListenMb)}), after 10 s ${m((s) => s.rssMb)} MB (${range((s) => s.rssMb)})`,
      );
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
