/**
 * failure-reports (issue 18): failure reports end to end (report → delivered) through the
 * service and through the hand-written equivalent (bench/baselines/raw-failure-server.ts: node:http
 * + pg + the same worker loop over undici, on a database of its own), from 100 concurrent
 * clients to one loopback receiver: products have one webhook configuration, partners three
 * (three deliveries per report). Rounds interleave service and baseline; medians. CPU per report
 * is what the server process (every thread) spent from the first report to the last delivery.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { costResult, processCpuSeconds } from '../lib/cpu';
import { addWebhook, reportRound, startReceiver, type ReportRound, type ReportTarget } from '../lib/failure-load';
import { infoResult, limitResult, log, median, roundRatioResult, ROUNDS, type Result } from '../lib/measure';
import { freshDatabase, startBaselineProcess, type Service } from '../lib/service';

const REPORTS = Number(process.env.BENCH_FAILURE_REPORTS ?? 5_000);
const CLIENTS = 100;
const HAND_WRITTEN = 'hand-written node:http + pg + undici';

type Measured = ReportRound & { cpuMsPerReport: number };
type Shape = { entityType: 'product' | 'partner'; configurations: number };
const SHAPES: Shape[] = [
  { entityType: 'product', configurations: 1 },
  { entityType: 'partner', configurations: 3 },
];

async function measure(target: ReportTarget, pid: number, receiver: Parameters<typeof reportRound>[1], shape: Shape, tag: string) {
  const before = processCpuSeconds(pid);
  const round = await reportRound(target, receiver, {
    tag,
    reports: REPORTS,
    clients: CLIENTS,
    entityType: shape.entityType,
    deliveriesPerReport: shape.configurations,
  });
  return { ...round, cpuMsPerReport: ((processCpuSeconds(pid) - before) * 1000) / REPORTS };
}

export async function runFailureReports(service: Service): Promise<{ results: Result[]; rounds: unknown[] }> {
  const receiver = await startReceiver();
  const db = await freshDatabase();
  let baseline: Awaited<ReturnType<typeof startBaselineProcess>> | undefined;
  const rounds: Array<Record<string, Measured>> = [];
  try {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    for (const { entityType, configurations } of SHAPES) {
      for (let c = 1; c <= configurations; c++) {
        const url = `${receiver.url}/${entityType}-${c}`;
        const secret = `whsec_${randomBytes(24).toString('base64')}`;
        await addWebhook(service, url, entityType, secret);
        await client.query(
          `INSERT INTO webhook_configs (url, entity_type, direction, secret_encrypted) VALUES ($1, $2, 'to_webshop', $3)`,
          [url, entityType, secret],
        );
      }
    }
    await client.end();
    baseline = await startBaselineProcess('raw-failure-server.ts', db.url);
    const targets = [
      { name: 'service', target: { url: service.url, token: service.token }, pid: service.pid },
      { name: 'baseline', target: { url: baseline.url, token: 'baseline' }, pid: baseline.pid },
    ];
    for (let r = 1; r <= ROUNDS; r++) {
      const measured: Record<string, Measured> = {};
      for (const shape of SHAPES) {
        for (const { name, target, pid } of r % 2 ? targets : [...targets].reverse()) {
          const key = `${name}-${shape.configurations}`;
          measured[key] = await measure(target, pid, receiver, shape, `F${r}-${key}`);
          const m = measured[key];
          log(
            `failure-reports round ${r}, ${name}, ${shape.configurations} configuration(s): ${m.endToEndReportsPerS.toFixed(0)} reports/s end to end ` +
              `(${m.deliveriesPerS.toFixed(0)} deliveries/s), accepted → first delivery p99 ${m.p99Ms} ms, ${m.cpuMsPerReport.toFixed(2)} ms CPU per report`,
          );
        }
      }
      rounds.push(measured);
    }
  } finally {
    await baseline?.close();
    receiver.close();
    await db.drop();
  }
  const med = (key: string, pick: (m: Measured) => number) => median(rounds.map((r) => pick(r[key]!)));
  const deliveries3 = med('service-3', (m) => m.deliveriesPerS);
  return {
    rounds,
    results: [
      // Issue 33: judged on the median of the per-round ratios, for one and for three configurations.
      ...[1, 3].map((configurations) =>
        roundRatioResult(
          'failure-reports',
          `reports/s end to end (report → delivered), ${configurations} configuration${configurations === 1 ? '' : 's'}`,
          rounds.map((r) => ({
            value: r[`service-${configurations}`]!.endToEndReportsPerS,
            baseline: r[`baseline-${configurations}`]!.endToEndReportsPerS,
          })),
          0.8,
          HAND_WRITTEN,
        ),
      ),
      {
        scenario: 'failure-reports',
        metric: 'deliveries/s end to end, 3 configurations per report',
        value: Math.round(deliveries3),
        baseline: Math.round(med('baseline-3', (m) => m.deliveriesPerS)),
        ratio: Number((deliveries3 / med('baseline-3', (m) => m.deliveriesPerS)).toFixed(3)),
        target: '≥ 2000',
        pass: deliveries3 >= 2000,
      },
      limitResult(
        'failure-reports',
        'report accepted → first delivery p99 ms, 1 configuration',
        med('service-1', (m) => m.p99Ms),
        50,
        med('baseline-1', (m) => m.p99Ms),
      ),
      infoResult(
        'failure-reports',
        'report accepted → first delivery p99 ms, 3 configurations',
        med('service-3', (m) => m.p99Ms),
      ),
      infoResult(
        'failure-reports',
        'report sent → first delivery p99 ms, 1 configuration',
        med('service-1', (m) => m.sentP99Ms),
      ),
      costResult(
        'failure-reports',
        'CPU ms per report, end to end (server process), 1 configuration',
        med('service-1', (m) => m.cpuMsPerReport),
        med('baseline-1', (m) => m.cpuMsPerReport),
        2,
        HAND_WRITTEN,
      ),
      costResult(
        'failure-reports',
        'CPU ms per report, end to end (server process), 3 configurations',
        med('service-3', (m) => m.cpuMsPerReport),
        med('baseline-3', (m) => m.cpuMsPerReport),
        2,
        HAND_WRITTEN,
      ),
    ],
  };
}
