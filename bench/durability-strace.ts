/**
 * Does a 2xx from the embedded store mean the write reached stable storage? Starts
 * `sync-gateway serve` (dist/, as `npm start` does) on a fresh data directory under
 * `strace -f -e trace=fsync,fdatasync,pwrite64 -y`, makes N single-product POSTs one after the
 * other, and counts the fsync/fdatasync calls on files in pg_wal made while they ran.
 *
 *   npx tsx bench/durability-strace.ts [requests] [EMBEDDED_FSYNC=true|false]
 *
 * Needs strace (`apt-get install -y strace`) and a built dist/ (`npm run build`).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');
const CLI = path.join(ROOT, 'bin', 'sync-gateway.js');

export type StraceCount = {
  requests: number;
  /** fsync/fdatasync calls on pg_wal files while the requests ran. */
  walSyncs: number;
  /** pwrite64 calls on pg_wal files while the requests ran. */
  walWrites: number;
  /** Every fsync/fdatasync while the requests ran, by file. */
  syncsByFile: Record<string, number>;
};

export function straceAvailable(): boolean {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function countWalSyncs(requests: number, embeddedFsync = true): Promise<StraceCount> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sgw-strace-'));
  const traceFile = path.join(dataDir, 'strace.txt');
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', EMBEDDED_FSYNC: String(embeddedFsync) };
  delete env.DATABASE_URL;
  try {
    const token = execFileSync(process.execPath, [CLI, 'token', 'create', '--name', 'strace'], {
      env: { ...env, LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
      .toString()
      .trim()
      .split('\n')
      .pop()!;
    const child = spawn(
      'strace',
      ['-f', '-qq', '-e', 'trace=fsync,fdatasync,pwrite64', '-y', '-o', traceFile, process.execPath, CLI, 'serve'],
      {
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      const url = await listening(child.stdout!);
      const before = readFileSync(traceFile, 'utf8').length;
      for (let i = 0; i < requests; i++) {
        const res = await fetch(`${url}/api/v1/products`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ products: [{ external_id: `STRACE-${i}`, name: `Product ${i}`, price: i + 0.5 }] }),
        });
        if (res.status >= 300) throw new Error(`POST /api/v1/products answered ${res.status}: ${await res.text()}`);
      }
      // strace writes each line as the call returns; the last response was sent after its sync.
      return { requests, ...countCalls(readFileSync(traceFile, 'utf8').slice(before)) };
    } finally {
      // The traced service is strace's child: stop it, and strace follows.
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const service = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ')[0]);
      if (service > 0) process.kill(service, 'SIGTERM');
      else child.kill('SIGKILL');
      await exited;
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function countCalls(trace: string): Omit<StraceCount, 'requests'> {
  let walSyncs = 0;
  let walWrites = 0;
  const syncsByFile: Record<string, number> = {};
  for (const line of trace.split('\n')) {
    const call = /(fsync|fdatasync|pwrite64)\(\d+<([^>]*)>/.exec(line);
    if (!call || / = -1 /.test(line)) continue;
    const [, name, file] = call as unknown as [string, string, string];
    const inWal = file.includes('/pg_wal/');
    if (name === 'pwrite64') {
      if (inWal) walWrites++;
      continue;
    }
    syncsByFile[file] = (syncsByFile[file] ?? 0) + 1;
    if (inWal) walSyncs++;
  }
  return { walSyncs, walWrites, syncsByFile };
}

function listening(stdout: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    stdout.on('data', (d: Buffer) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"sync-gateway listening"'));
      if (line) resolve(JSON.parse(line).url as string);
    });
    stdout.once('end', () => reject(new Error(`serve stopped before listening: ${out}`)));
  });
}

if (require.main === module) {
  const requests = Number(process.argv[2] ?? 20);
  const fsync = (process.argv[3] ?? process.env.EMBEDDED_FSYNC ?? 'true') !== 'false';
  if (!straceAvailable()) {
    console.error('strace is not installed (apt-get install -y strace)');
    process.exit(2);
  }
  countWalSyncs(requests, fsync).then(
    (count) => {
      console.log(JSON.stringify(count, null, 2));
      const ok = !fsync || count.walSyncs >= count.requests;
      console.log(
        ok
          ? `ok: ${count.walSyncs} WAL syncs for ${count.requests} committed write requests`
          : `NOT DURABLE: ${count.walSyncs} WAL syncs for ${count.requests} requests`,
      );
      process.exit(ok ? 0 : 1);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
