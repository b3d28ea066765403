import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../support/process';

/**
 * The first start on an empty data directory. It used to run initdb in PGlite, which took the
 * process to 735–760 MB (a 512 MB container died on it), and the instance that ran it kept
 * 300–400 MB resident while it lived. Now it loads the pre-initialised data directory made at build
 * time (ADR 0041): peak 390–400 MB, then the RSS of any later start. Runs the built server with
 * `npm start`'s flags; Linux only (/proc).
 */
const PEAK_LIMIT_MB = 480;
const RSS_LIMIT_MB = 400;

let dataDir: string | undefined;
let child: ChildProcess | undefined;

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const closed = new Promise((resolve) => child!.once('close', resolve));
    child.kill('SIGTERM');
    await closed;
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** VmRSS, or VmHWM: the process's peak RSS so far, all threads. */
function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1]) / 1024;
}

it('a first start on an empty data directory stays under 480 MB and idles as a later one', async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-fresh-'));
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', MALLOC_MMAP_THRESHOLD_: '131072' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const started = spawn(
    process.execPath,
    ['--max-old-space-size=192', '--max-semi-space-size=16', path.join(ROOT, 'bin', 'sync-gateway.js'), 'serve'],
    { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child = started;
  let output = '';
  await new Promise<void>((resolve, reject) => {
    started.stdout!.on('data', (d: Buffer) => {
      output += d;
      if (output.includes('"sync-gateway listening"')) resolve();
    });
    started.stderr!.on('data', (d: Buffer) => (output += d));
    started.once('close', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
  // V8 returns the closed instance's memory to the system in the background: wait for it, bounded.
  let lowest = Infinity;
  for (const until = Date.now() + 30_000; Date.now() < until && lowest >= RSS_LIMIT_MB;) {
    lowest = Math.min(lowest, statusMb(started.pid!, 'VmRSS'));
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(statusMb(started.pid!, 'VmHWM')).toBeLessThan(PEAK_LIMIT_MB);
  expect(lowest).toBeLessThan(RSS_LIMIT_MB);
  expect(output).toContain('initialised the embedded store from the pre-initialised data directory');
  expect(output).toContain('applied database migrations');
}, 120_000);
