/**
 * webhook-fanout: 10,000 failures reported by 100 concurrent clients, one webhook configuration,
 * a loopback receiver in its own process. Measures deliveries per second (first report to last
 * delivery) and, per failure, the time from sending its report to its first delivery arriving.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Agent, request } from 'node:http';
import { limitResult, log, median, ROUNDS, infoResult, type Result } from '../lib/measure';
import { ROOT, runCliCommand, type Service } from '../lib/service';

const FAILURES = Number(process.env.BENCH_FAILURES ?? 10_000);
const CLIENTS = 100;

async function startReceiver(): Promise<{ url: string; arrivals(): Promise<{ deliveries: number; arrivals: Record<string, number> }>; close(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'lib', 'receiver-process.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`receiver exited ${code}`)));
  });
  return {
    url,
    arrivals: async () => (await fetch(url)).json() as Promise<{ deliveries: number; arrivals: Record<string, number> }>,
    close: () => child.kill('SIGTERM'),
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** One round: FAILURES reports from CLIENTS concurrent clients; waits until every one was delivered. */
async function round(service: Service, receiverArrivals: () => Promise<{ arrivals: Record<string, number> }>, tag: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const { hostname, port } = new URL(service.url);
  const post = (body: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        { agent, hostname, port, method: 'POST', path: '/api/v1/failures', headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const sentAt = new Map<string, number>();
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < FAILURES) {
        const externalId = `${tag}-${next++}`;
        sentAt.set(externalId, Date.now());
        const status = await post(
          JSON.stringify({ entity_type: 'product', external_id: externalId, source: 'erp', error_message: 'Price must not be negative', error_details: [{ field: 'price', message: 'must be >= 0' }] }),
        );
        if (status !== 201) throw new Error(`report answered ${status}`);
      }
    }),
  );
  const reportedAt = Date.now();
  let arrivals: Record<string, number> = {};
  for (;;) {
    arrivals = (await receiverArrivals()).arrivals;
    const mine = [...sentAt.keys()].filter((id) => arrivals[id] !== undefined).length;
    if (mine === FAILURES) break;
    if (Date.now() - reportedAt > 120_000) throw new Error(`only ${mine} of ${FAILURES} delivered after 2 minutes`);
    await new Promise((r) => setTimeout(r, 200));
  }
  agent.destroy();
  const latencies = [...sentAt].map(([id, t]) => arrivals[id]! - t).sort((a, b) => a - b);
  const lastArrival = Math.max(...[...sentAt.keys()].map((id) => arrivals[id]!));
  return {
    deliveriesPerS: FAILURES / ((lastArrival - started) / 1000),
    reportsPerS: FAILURES / ((reportedAt - started) / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

export async function runWebhookFanout(service: Service): Promise<{ results: Result[]; rounds: unknown[] }> {
  const receiver = await startReceiver();
  const rounds: Array<Awaited<ReturnType<typeof round>>> = [];
  try {
    await runCliCommand(['webhook', 'add', '--url', receiver.url, '--entity-type', 'product', '--direction', 'to_webshop', '--secret', 'bench-secret-0123456789'], service.env);
    for (let r = 1; r <= ROUNDS; r++) {
      const result = await round(service, receiver.arrivals, `R${r}`);
      log(`webhook-fanout round ${r}: ${result.deliveriesPerS.toFixed(0)} deliveries/s (reports ${result.reportsPerS.toFixed(0)}/s), report → first delivery p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`);
      rounds.push(result);
    }
  } finally {
    receiver.close();
  }
  const deliveries = median(rounds.map((r) => r.deliveriesPerS));
  return {
    rounds,
    results: [
      { scenario: 'webhook-fanout', metric: 'deliveries/s', value: Math.round(deliveries), baseline: null, ratio: null, target: '≥ 1000', pass: deliveries >= 1000 },
      limitResult('webhook-fanout', 'report → first delivery p99 ms', median(rounds.map((r) => r.p99Ms)), 100),
      infoResult('webhook-fanout', 'report → first delivery p50 ms', median(rounds.map((r) => r.p50Ms))),
    ],
  };
}
