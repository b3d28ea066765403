/**
 * A: the wake gate. Failure reports → signed deliveries to one loopback receiver, builds side by
 * side (adapted from bench/probes/failure-variants.ts of 8d7013d, harness code from wt-base's
 * bench/lib): each variant on a database of its own, 1 configuration (product), 100 clients,
 * rounds interleaved (order alternates). CPU: the service process (every thread) and the
 * PostgreSQL backends connected to its database, from the first report to the last delivery.
 *   npx tsx bench/probes/wake-gate-variants.ts base=/path/to/checkout gate=/path/to/other-checkout
 * GV_REPORTS (3000), GV_ROUNDS (4)
 */
import { writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { databaseCpuSeconds, processCpuSeconds, threadCpuSeconds } from '../lib/cpu';
import { reportRound, startReceiver, type Receiver } from '../lib/failure-load';
import { log, median } from '../lib/measure';
import { startReportVariant, type ReportVariant } from '../lib/report-variant';
import { freshDatabase, type FreshDatabase } from '../lib/service';

const REPORTS = Number(process.env.GV_REPORTS ?? 3000);
const ROUNDS = Number(process.env.GV_ROUNDS ?? 4);

type Target = ReportVariant;

/** Webhook configurations per entity type. */
const CONFIGURATIONS = [['product', 1]] as const;

async function main(): Promise<void> {
  const variants = process.argv.slice(2).map((arg) => {
    const [name, root] = arg.split(/=(.*)/s, 2) as [string, string];
    return { name, root: path.resolve(root) };
  });
  const receiver: Receiver = await startReceiver();
  const dbs: FreshDatabase[] = [];
  const targets: Target[] = [];
  const rows: unknown[] = [];
  try {
    for (const v of variants) {
      const db = await freshDatabase(v.root);
      dbs.push(db);
      targets.push(await startReportVariant({ name: v.name, root: v.root, db, receiverUrl: receiver.url }, CONFIGURATIONS));
    }
    // A warm-up round each (JIT, pools, prepared statements), not counted.
    for (const t of targets)
      await reportRound(t.target, receiver, {
        tag: `GVW-${t.name}`,
        reports: 500,
        clients: 100,
        entityType: 'product',
        deliveriesPerReport: 1,
      });
    const samples = new Map<string, Array<Record<string, number | string>>>();
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 ? targets : [...targets].reverse();
      for (const t of order) {
        const load = loadavg()[0]!;
        const before = processCpuSeconds(t.pid);
        const threadsBefore = threadCpuSeconds(t.pid);
        const databaseBefore = await databaseCpuSeconds(t.databaseUrl);
        const r = await reportRound(t.target, receiver, {
          tag: `GV${round}-${t.name}`,
          reports: REPORTS,
          clients: 100,
          entityType: 'product',
          deliveriesPerReport: 1,
        });
        const cpu = ((processCpuSeconds(t.pid) - before) * 1000) / REPORTS;
        const threadsAfter = threadCpuSeconds(t.pid);
        const mainMs = (((threadsAfter.get('main') ?? 0) - (threadsBefore.get('main') ?? 0)) * 1000) / REPORTS;
        const databaseAfter = await databaseCpuSeconds(t.databaseUrl);
        const database =
          databaseBefore !== undefined && databaseAfter !== undefined ? ((databaseAfter - databaseBefore) * 1000) / REPORTS : NaN;
        const row = {
          round,
          name: t.name,
          load1: Number(load.toFixed(1)),
          deliveriesPerS: r.deliveriesPerS,
          acceptedPerS: r.reportsPerS,
          p50Ms: r.p50Ms,
          p99Ms: r.p99Ms,
          sentP50Ms: r.sentP50Ms,
          sentP99Ms: r.sentP99Ms,
          cpuMsPerReport: cpu,
          mainThreadMsPerReport: mainMs,
          dbMsPerReport: database,
          totalMsPerReport: cpu + database,
        };
        rows.push(row);
        samples.set(t.name, [...(samples.get(t.name) ?? []), row]);
        log(
          `round ${round} ${t.name} (load ${load.toFixed(1)}): ${r.deliveriesPerS.toFixed(0)} deliveries/s, accepted→delivery p50 ${r.p50Ms} p99 ${r.p99Ms} ms, ` +
            `service ${cpu.toFixed(3)} ms CPU/report (main thread ${mainMs.toFixed(3)}), database ${database.toFixed(3)}, total ${(cpu + database).toFixed(3)}`,
        );
      }
    }
    writeFileSync(path.join(tmpdir(), `wake-gate-rounds-${Date.now()}.json`), JSON.stringify(rows, null, 1));
    for (const [name, xs] of samples) {
      const s = (k: string) => {
        const v = xs.map((x) => Number(x[k]));
        return `${median(v).toFixed(k.endsWith('PerS') ? 0 : 3)} [${Math.min(...v).toFixed(k.endsWith('PerS') ? 0 : 3)}–${Math.max(...v).toFixed(k.endsWith('PerS') ? 0 : 3)}]`;
      };
      console.log(
        `${name}: deliveries/s ${s('deliveriesPerS')}; p50 ${s('p50Ms')} ms; p99 ${s('p99Ms')} ms; service CPU ${s('cpuMsPerReport')} ms/report; ` +
          `main thread ${s('mainThreadMsPerReport')}; database ${s('dbMsPerReport')}; total ${s('totalMsPerReport')}`,
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
