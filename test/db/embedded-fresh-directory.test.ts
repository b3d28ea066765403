import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../support/process';

/**
 * The first start on an empty data directory runs initdb in PGlite, and the instance that ran it
 * keeps 300–400 MB resident while it lives: the server idled at 480 MB after its first start
 * (peak 750) against 260–300 MB after any later one. The store's thread replaces that instance at
 * once (src/db/embedded-thread.entry.ts). Runs the built server with `npm start`'s flags; Linux
 * only (/proc).
 */
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

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1]) / 1024;
}

it('a first start on an empty data directory leaves initdb’s memory behind', async () => {
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
    lowest = Math.min(lowest, rssMb(started.pid!));
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(lowest).toBeLessThan(RSS_LIMIT_MB);
}, 120_000);
