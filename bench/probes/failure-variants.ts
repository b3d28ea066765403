/**
 * Failure reports end to end, service builds side by side (issue 18): each variant (a checkout
 * with `bin/` and a built `dist/`) and the hand-written baseline run on a database of their own,
 * one loopback receiver, rounds interleaved (the order alternates), medians printed. The same
 * round as the failure-reports scenario (bench/lib/failure-load.ts): 100 clients, report →
 * delivered, CPU of the server process (every thread) from the first report to the last delivery,
 * and of the PostgreSQL backends serving its database (they share this machine's cores).
 *
 *   npx tsx bench/probes/failure-variants.ts [name=/path/to/checkout ...]
 *
 * FV_REPORTS (default 3000), FV_ROUNDS (3), FV_SHAPES (`1,3`: configurations per report),
 * FV_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, given to the variants only).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import { databaseCpuSeconds, processCpuSeconds, threadCpuSeconds } from '../lib/cpu';
import { reportRound, startReceiver, type Receiver } from '../lib/failure-load';
import { log, median } from '../lib/measure';
import { startReportVariant, type ReportVariant } from '../lib/report-variant';
import { freshDatabase, ROOT, startBaselineProcess, type FreshDatabase } from '../lib/service';

const REPORTS = Number(process.env.FV_REPORTS ?? 3000);
const ROUNDS = Number(process.env.FV_ROUNDS ?? 3);
const SHAPES = (process.env.FV_SHAPES ?? '1,3').split(',').map(Number);
const NODE_ARGS = process.env.FV_NODE_ARGS?.split(' ').filter(Boolean) ?? [];

type Target = ReportVariant;

/** Webhook configurations per entity type (1 for product reports, 3 for partner reports). */
const CONFIGURATIONS = [
  ['product', 1],
  ['partner', 3],
] as const;

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
  return {
    name: 'baseline',
    target: { url: baseline.url, token: 'baseline' },
    pid: baseline.pid,
    databaseUrl: db.url,
    stop: () => baseline.close(),
  };
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
      targets.push(await startReportVariant({ name: v.name, root: v.root, db, receiverUrl: receiver.url }, CONFIGURATIONS, NODE_ARGS));
    }
    const db = await freshDatabase();
    dbs.push(db);
    targets.push(await startBaseline(db, receiver.url));
    const samples = new Map<string, Array<{ e2e: number; cpu: number; database: number; p99: number }>>();
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 ? targets : [...targets].reverse();
      for (const configurations of SHAPES) {
        for (const t of order) {
          const before = processCpuSeconds(t.pid);
          const threadsBefore = threadCpuSeconds(t.pid);
          const databaseBefore = await databaseCpuSeconds(t.databaseUrl);
          const r = await reportRound(t.target, receiver, {
            tag: `FV${round}-${t.name}-${configurations}`,
            reports: REPORTS,
            clients: 100,
            entityType: configurations === 1 ? 'product' : 'partner',
            deliveriesPerReport: configurations,
          });
          const cpu = ((processCpuSeconds(t.pid) - before) * 1000) / REPORTS;
          const databaseAfter = await databaseCpuSeconds(t.databaseUrl);
          const database =
            databaseBefore !== undefined && databaseAfter !== undefined ? ((databaseAfter - databaseBefore) * 1000) / REPORTS : NaN;
          const threads = [...threadCpuSeconds(t.pid)]
            .map(([name, seconds]) => [name, ((seconds - (threadsBefore.get(name) ?? 0)) * 1000) / REPORTS] as const)
            .filter(([, ms]) => ms >= 0.01)
            .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
            .join(', ');
          const key = `${t.name} ×${configurations}`;
          samples.set(key, [...(samples.get(key) ?? []), { e2e: r.endToEndReportsPerS, cpu, database, p99: r.p99Ms }]);
          log(
            `round ${round} ${key}: ${r.endToEndReportsPerS.toFixed(0)} reports/s end to end, ${r.reportsPerS.toFixed(0)} accepted/s, ` +
              `${cpu.toFixed(3)} ms CPU/report (${threads}), database ${database.toFixed(3)} ms/report, first delivery p99 ${r.p99Ms} ms`,
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
          `${cpu.toFixed(3)} ms CPU/report (${(cpu / median(base.map((x) => x.cpu))).toFixed(2)}×)  ` +
          `database ${median(xs.map((x) => x.database)).toFixed(3)} ms/report  p99 ${median(xs.map((x) => x.p99))} ms`,
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
