/**
 * webhook-fanout: 10,000 failures reported by 100 concurrent clients, one webhook configuration,
 * a loopback receiver in its own process. Measures deliveries per second (first report to last
 * delivery) and, per failure, the time from its report being accepted (201) to its first delivery
 * arriving; also from sending the report, which adds the report's own wait under this load. Then
 * the delivery machinery alone: a backlog drained by a `sync-gateway worker` process.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Agent, request } from 'node:http';
import { reportRound, startWebhookReceiver, type Receiver } from '../lib/failure-load';
import { limitResult, log, median, ROUNDS, infoResult, type Result } from '../lib/measure';
import { ROOT, type Service } from '../lib/service';

const FAILURES = Number(process.env.BENCH_FAILURES ?? 10_000);
const CLIENTS = 100;

/** One round: FAILURES reports from CLIENTS concurrent clients; waits until every one was delivered. */
const round = (service: Service, receiver: Pick<Receiver, 'arrivals'>, tag: string) =>
  reportRound(service, receiver, { tag, reports: FAILURES, clients: CLIENTS });

export async function runWebhookFanout(service: Service): Promise<{ results: Result[]; rounds: unknown[] }> {
  const receiver = await startWebhookReceiver(service, 'product');
  const rounds: Array<Awaited<ReturnType<typeof round>>> = [];
  try {
    for (let r = 1; r <= ROUNDS; r++) {
      const result = await round(service, receiver, `R${r}`);
      log(
        `webhook-fanout round ${r}: ${result.deliveriesPerS.toFixed(0)} deliveries/s (reports ${result.reportsPerS.toFixed(0)}/s), ` +
          `accepted → delivered p50 ${result.p50Ms} ms p99 ${result.p99Ms} ms; sent → delivered p50 ${result.sentP50Ms} ms p99 ${result.sentP99Ms} ms`,
      );
      rounds.push(result);
    }
  } finally {
    receiver.close();
  }
  const deliveries = median(rounds.map((r) => r.deliveriesPerS));
  return {
    rounds,
    results: [
      {
        scenario: 'webhook-fanout',
        metric: 'deliveries/s',
        value: Math.round(deliveries),
        baseline: null,
        ratio: null,
        target: '≥ 1000',
        pass: deliveries >= 1000,
      },
      infoResult('webhook-fanout', 'reports accepted/s', median(rounds.map((r) => r.reportsPerS))),
      limitResult('webhook-fanout', 'report accepted → first delivery p99 ms', median(rounds.map((r) => r.p99Ms)), 100),
      infoResult('webhook-fanout', 'report accepted → first delivery p50 ms', median(rounds.map((r) => r.p50Ms))),
      infoResult('webhook-fanout', 'report sent → first delivery p99 ms', median(rounds.map((r) => r.sentP99Ms))),
    ],
  };
}

/**
 * The delivery machinery alone: FAILURES reports queued while no worker runs (the service has
 * WORKER_ENABLED=false), then one `sync-gateway worker` process drains them. Rate from the first
 * delivery to the last.
 */
export async function runBacklogDrain(service: Service): Promise<Result> {
  const receiver = await startWebhookReceiver(service, 'partner');
  try {
    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < FAILURES) {
          const body = JSON.stringify({
            entity_type: 'partner',
            external_id: `B-${next++}`,
            source: 'erp',
            error_message: 'Unknown country',
          });
          await new Promise<void>((resolve, reject) => {
            const { hostname, port } = new URL(service.url);
            const req = request(
              {
                agent,
                hostname,
                port,
                method: 'POST',
                path: '/api/v1/failures',
                headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
              },
              (res) => {
                res.resume();
                res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`report answered ${res.statusCode}`))));
              },
            );
            req.on('error', reject);
            req.end(body);
          });
        }
      }),
    );
    agent.destroy();
    const worker = spawn(process.execPath, [path.join(ROOT, 'bin', 'sync-gateway.js'), 'worker'], {
      env: { ...service.env, LOG_LEVEL: 'warn' },
      stdio: 'inherit',
    });
    try {
      let arrivals: Record<string, number> = {};
      const started = Date.now();
      while (Object.keys(arrivals).length < FAILURES) {
        if (Date.now() - started > 120_000) throw new Error('backlog not drained after 2 minutes');
        await new Promise((r) => setTimeout(r, 200));
        arrivals = (await receiver.arrivals()).arrivals;
      }
      const times = Object.values(arrivals);
      const rate = FAILURES / ((Math.max(...times) - Math.min(...times)) / 1000);
      log(`webhook-fanout backlog: a worker process drained ${FAILURES} deliveries at ${rate.toFixed(0)}/s`);
      return infoResult('webhook-fanout', 'deliveries/s draining a backlog (worker process alone)', rate);
    } finally {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
  } finally {
    receiver.close();
  }
}
