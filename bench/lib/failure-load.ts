/**
 * Failure reports as load: the webhook receiver (receiver-process.ts), its registration with the
 * service, and one round of reports from concurrent clients, timed from the first report to the
 * last delivery. Shared by webhook-fanout, failure-reports and realistic-day.
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import path from 'node:path';
import { percentile } from './measure';
import { ROOT, runCliCommand, type Service } from './service';

export type Arrivals = {
  deliveries: number;
  /** external_id → first delivery (epoch ms). */
  arrivals: Record<string, number>;
  lastArrivals: Record<string, number>;
  counts: Record<string, number>;
};

export type Receiver = { url: string; arrivals(): Promise<Arrivals>; close(): void };

export async function startReceiver(): Promise<Receiver> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'lib', 'receiver-process.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`receiver exited ${code}`)));
  });
  return {
    url,
    arrivals: async () => (await fetch(url)).json() as Promise<Arrivals>,
    close: () => child.kill('SIGTERM'),
  };
}

const BENCH_SECRET = 'bench-secret-0123456789';

/** Registers `url` as a webhook of the service for `entityType`'s to_webshop failures, through the CLI as an operator would. */
export async function addWebhook(service: Pick<Service, 'env'>, url: string, entityType: string, secret = BENCH_SECRET): Promise<void> {
  await runCliCommand(
    ['webhook', 'add', '--url', url, '--entity-type', entityType, '--direction', 'to_webshop', '--secret', secret],
    service.env,
  );
}

/** A receiver process, registered as the service's webhook for `entityType`. */
export async function startWebhookReceiver(service: Pick<Service, 'env'>, entityType: string): Promise<Receiver> {
  const receiver = await startReceiver();
  try {
    await addWebhook(service, receiver.url, entityType);
  } catch (error) {
    receiver.close();
    throw error;
  }
  return receiver;
}

/** Where reports go: the service, or a baseline answering the same route. */
export type ReportTarget = { url: string; token: string };

export type ReportRound = {
  deliveriesPerS: number;
  reportsPerS: number;
  /** Reports per second from the first report to the last delivery of the last report. */
  endToEndReportsPerS: number;
  p50Ms: number;
  p99Ms: number;
  sentP50Ms: number;
  sentP99Ms: number;
};

/**
 * One round: `reports` failures of `entityType` from `clients` concurrent clients; waits until
 * each has had `deliveriesPerReport` deliveries (one per matching configuration). Latencies are
 * to the first delivery of each report.
 */
export async function reportRound(
  target: ReportTarget,
  receiver: Pick<Receiver, 'arrivals'>,
  options: { tag: string; reports: number; clients: number; entityType?: string; deliveriesPerReport?: number },
): Promise<ReportRound> {
  const { tag, reports, clients } = options;
  const perReport = options.deliveriesPerReport ?? 1;
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const { hostname, port } = new URL(target.url);
  const post = (body: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          agent,
          hostname,
          port,
          method: 'POST',
          path: '/api/v1/failures',
          headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const sentAt = new Map<string, number>();
  const acceptedAt = new Map<string, number>();
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < reports) {
        const externalId = `${tag}-${next++}`;
        sentAt.set(externalId, Date.now());
        const status = await post(
          JSON.stringify({
            entity_type: options.entityType ?? 'product',
            external_id: externalId,
            source: 'erp',
            error_message: 'Price must not be negative',
            error_details: [{ field: 'price', message: 'must be >= 0' }],
          }),
        );
        if (status !== 201) throw new Error(`report answered ${status}`);
        acceptedAt.set(externalId, Date.now());
      }
    }),
  );
  const reportedAt = Date.now();
  let seen: Arrivals;
  for (;;) {
    seen = await receiver.arrivals();
    const done = [...sentAt.keys()].filter((id) => (seen.counts[id] ?? 0) >= perReport).length;
    if (done === reports) break;
    if (Date.now() - reportedAt > 120_000) throw new Error(`only ${done} of ${reports} delivered after 2 minutes`);
    await new Promise((r) => setTimeout(r, 100));
  }
  agent.destroy();
  const first = seen.arrivals;
  const fromSent = [...sentAt].map(([id, t]) => first[id]! - t).sort((a, b) => a - b);
  // A delivery may beat the 201 back to the client; that counts as no wait.
  const fromAccepted = [...acceptedAt].map(([id, t]) => Math.max(0, first[id]! - t)).sort((a, b) => a - b);
  const lastArrival = Math.max(...[...sentAt.keys()].map((id) => seen.lastArrivals[id]!));
  const seconds = (lastArrival - started) / 1000;
  return {
    deliveriesPerS: (reports * perReport) / seconds,
    reportsPerS: reports / ((reportedAt - started) / 1000),
    endToEndReportsPerS: reports / seconds,
    p50Ms: percentile(fromAccepted, 50),
    p99Ms: percentile(fromAccepted, 99),
    sentP50Ms: percentile(fromSent, 50),
    sentP99Ms: percentile(fromSent, 99),
  };
}
