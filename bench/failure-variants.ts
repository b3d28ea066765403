/**
 * Failure reports end to end, service builds side by side (issue 18): each variant (a checkout
 * with `bin/` and a built `dist/`) and the hand-written baseline run on a database of their own,
 * one loopback receiver, rounds interleaved (the order alternates), medians printed. The same
 * round as the failure-reports scenario (bench/lib/failure-load.ts): 100 clients, report →
 * delivered, CPU of the server process (every thread) from the first report to the last delivery.
 *
 *   npx tsx bench/failure-variants.ts [name=/path/to/checkout ...]
 *
 * FV_REPORTS (default 3000), FV_ROUNDS (3), FV_SHAPES (`1,3`: configurations per report),
 * FV_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, given to the variants only).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { processCpuSeconds } from './lib/cpu';
import { reportRound, startReceiver, type Receiver, type ReportTarget } from './lib/failure-load';
import { log, median } from './lib/measure';
import { freshDatabase, ROOT, startBaselineProcess, type FreshDatabase } from './lib/service';

const REPORTS = Number(process.env.FV_REPORTS ?? 3000);
const ROUNDS = Number(process.env.FV_ROUNDS ?? 3);
const SHAPES = (process.env.FV_SHAPES ?? '1,3').split(',').map(Number);
const NODE_ARGS = process.env.FV_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

/** CPU seconds per thread name: `main`, then by name (worker threads are `node`; libuv's pool, V8's helpers). */
function threadCpu(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // the thread ended meanwhile
    }
  }
  return byName;
}

type Target = { name: string; target: ReportTarget; pid: number; stop(): Promise<void> };

function runCli(root: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin', 'sync-gateway.js'), ...args], { env: { ...env, LOG_LEVEL: 'warn' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited ${code}: ${err}`))));
  });
}

function startFlags(): { env: Record<string, string>; flags: string[] } {
  const start = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.split(/\s+/);
  const env = Object.fromEntries(words.filter((w) => /^[A-Z_][A-Z0-9_]*=/.test(w)).map((w) => w.split('=', 2) as [string, string]));
  return { env, flags: words.filter((w) => w.startsWith('--')) };
}

async function startVariant(name: string, root: string, db: FreshDatabase, receiverUrl: string): Promise<Target> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sgw-fv-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    PORT: '0',
    LOG_LEVEL: 'info',
    RATE_LIMIT_READ_PER_MINUTE: '1000000000',
    RATE_LIMIT_WRITE_PER_MINUTE: '1000000000',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
  };
  const token = (await runCli(root, ['token', 'create', '--name', `fv-${name}`], env)).trim().split('\n').pop()!;
  for (const [entityType, count] of [
    ['product', 1],
    ['partner', 3],
  ] as const) {
    for (let c = 1; c <= count; c++) {
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      await runCli(
        root,
        [
          'webhook',
          'add',
          '--url',
          `${receiverUrl}/${entityType}-${c}`,
          '--entity-type',
          entityType,
          '--direction',
          'to_webshop',
          '--secret',
          secret,
        ],
        env,
      );
    }
  }
  const start = startFlags();
  const child: ChildProcess = spawn(process.execPath, [...start.flags, ...NODE_ARGS, path.join(root, 'bin', 'sync-gateway.js'), 'serve'], {
    env: { ...start.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"sync-gateway listening"'));
      if (line) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve((JSON.parse(line) as { url: string }).url);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited ${code}: ${out.slice(-2000)}`)));
  });
  return {
    name,
    target: { url, token },
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startBaseline(db: FreshDatabase, receiverUrl: string): Promise<Target> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  for (const [entityType, count] of [
    ['product', 1],
    ['partner', 3],
  ] as const) {
    for (let c = 1; c <= count; c++) {
      await client.query(`INSERT INTO webhook_configs (url, entity_type, direction, secret_encrypted) VALUES ($1, $2, 'to_webshop', $3)`, [
        `${receiverUrl}/${entityType}-${c}`,
        entityType,
        `whsec_${randomBytes(24).toString('base64')}`,
      ]);
    }
  }
  await client.end();
  const baseline = await startBaselineProcess('raw-failure-server.ts', db.url);
  return { name: 'baseline', target: { url: baseline.url, token: 'baseline' }, pid: baseline.pid, stop: () => baseline.close() };
}

async function main(): Promise<void> {
  const variants = process.argv.slice(2).map((arg) => {
    const [name, root] = arg.includes('=') ? (arg.split(/=(.*)/s, 2) as [string, string]) : [path.basename(arg), arg];
    return { name, root: path.resolve(root) };
  });
  if (variants.length === 0) variants.push({ name: 'this', root: ROOT });
  const receiver: Receiver = await startReceiver();
  const dbs: FreshDatabase[] = [];
  const targets: Target[] = [];
  try {
    for (const v of variants) {
      const db = await freshDatabase();
      dbs.push(db);
      targets.push(await startVariant(v.name, v.root, db, receiver.url));
    }
    const db = await freshDatabase();
    dbs.push(db);
    targets.push(await startBaseline(db, receiver.url));
    const samples = new Map<string, Array<{ e2e: number; cpu: number; p99: number }>>();
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 ? targets : [...targets].reverse();
      for (const configurations of SHAPES) {
        for (const t of order) {
          const before = processCpuSeconds(t.pid);
          const threadsBefore = threadCpu(t.pid);
          const r = await reportRound(t.target, receiver, {
            tag: `FV${round}-${t.name}-${configurations}`,
            reports: REPORTS,
            clients: 100,
            entityType: configurations === 1 ? 'product' : 'partner',
            deliveriesPerReport: configurations,
          });
          const cpu = ((processCpuSeconds(t.pid) - before) * 1000) / REPORTS;
          const threads = [...threadCpu(t.pid)]
            .map(([name, seconds]) => [name, ((seconds - (threadsBefore.get(name) ?? 0)) * 1000) / REPORTS] as const)
            .filter(([, ms]) => ms >= 0.01)
            .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
            .join(', ');
          const key = `${t.name} ×${configurations}`;
          samples.set(key, [...(samples.get(key) ?? []), { e2e: r.endToEndReportsPerS, cpu, p99: r.p99Ms }]);
          log(
            `round ${round} ${key}: ${r.endToEndReportsPerS.toFixed(0)} reports/s end to end, ${r.reportsPerS.toFixed(0)} accepted/s, ` +
              `${cpu.toFixed(3)} ms CPU/report (${threads}), first delivery p99 ${r.p99Ms} ms`,
          );
        }
      }
    }
    for (const [key, xs] of samples) {
      const base = samples.get(`baseline ×${key.split('×')[1]}`)!;
      const e2e = median(xs.map((x) => x.e2e));
      const cpu = median(xs.map((x) => x.cpu));
      console.log(
        `${key.padEnd(16)} ${e2e.toFixed(0).padStart(6)} reports/s (${(e2e / median(base.map((x) => x.e2e))).toFixed(2)}× baseline)  ` +
          `${cpu.toFixed(3)} ms CPU/report (${(cpu / median(base.map((x) => x.cpu))).toFixed(2)}×)  p99 ${median(xs.map((x) => x.p99))} ms`,
      );
    }
  } finally {
    for (const t of targets) await t.stop().catch(() => undefined);
    receiver.close();
    for (const db of dbs) await db.drop().catch(() => undefined);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
