/**
 * embedded-latency (issue 18, docs/adr/0032): does the embedded store keep the event loop free?
 * On the embedded backend, with 10,000 pending products: the poll (`updated-products?limit=50`)
 * at 4 connections on a quiet store, then `/health` and the same poll while the ERP pushes
 * 10,000 stocks per request back to back (half of them changed each time). Also RSS: idle after
 * seeding, and the peak during the pushes.
 */
import { httpLoad, infoResult, limitResult, log, type HttpLoad, type Result } from '../lib/measure';
import { api, peakRss, type Service } from '../lib/service';
import { seedPendingProducts, POLL_PRODUCTS } from './poll';
import { stockBatch } from './stock-upsert';

const CONNECTIONS = 4;
const DURATION_S = Number(process.env.BENCH_LATENCY_SECONDS ?? 20);
const MB = 1024 * 1024;

const poll = (service: Service) =>
  httpLoad({
    url: `${service.url}/api/v1/updated-products?limit=50`,
    connections: CONNECTIONS,
    durationS: DURATION_S,
    headers: { authorization: `Bearer ${service.token}` },
  });

const health = (service: Service) => httpLoad({ url: `${service.url}/health`, connections: 1, durationS: DURATION_S });

/** 10,000-stock pushes one after the other until `stop()`; returns how many completed. */
function pushLoop(service: Service): { stop(): Promise<number> } {
  let running = true;
  let pushes = 0;
  const done = (async () => {
    await api(service, 'POST', '/api/v1/stocks', { stocks: stockBatch('SUP-latency', 0) });
    for (let k = 1; running; k++) {
      await api(service, 'POST', '/api/v1/stocks', { stocks: stockBatch('SUP-latency', k) });
      pushes++;
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return pushes;
    },
  };
}

export async function runEmbeddedLatency(service: Service): Promise<{ results: Result[]; details: unknown }> {
  const emptyRss = service.rss();
  await seedPendingProducts(service, POLL_PRODUCTS);
  const quiet = await poll(service);
  const idleRss = service.rss();
  log(`embedded-latency quiet: poll ${quiet.reqPerSec.toFixed(0)} req/s at ${CONNECTIONS} connections (p99 ${quiet.p99Ms} ms)`);

  const pushes = pushLoop(service);
  const started = performance.now();
  const { result, peakBytes } = await peakRss(service, async () => {
    const [healthLoad, pollLoad] = await Promise.all([health(service), poll(service)]);
    return { healthLoad, pollLoad, pushes: await pushes.stop() };
  });
  const seconds = (performance.now() - started) / 1000;
  const { healthLoad, pollLoad }: { healthLoad: HttpLoad; pollLoad: HttpLoad } = result;
  log(
    `embedded-latency during ${result.pushes} pushes of 10,000 stocks in ${seconds.toFixed(0)} s: /health p99 ${healthLoad.p99Ms} ms ` +
      `(${healthLoad.reqPerSec.toFixed(0)} req/s), poll p99 ${pollLoad.p99Ms} ms (${pollLoad.reqPerSec.toFixed(0)} req/s); ` +
      `RSS empty ${(emptyRss / MB).toFixed(0)} MB, idle ${(idleRss / MB).toFixed(0)} MB, peak ${(peakBytes / MB).toFixed(0)} MB`,
  );
  return {
    details: { quiet, healthLoad, pollLoad, pushes: result.pushes, seconds, emptyRss, idleRss, peakBytes },
    results: [
      limitResult('embedded-latency', '/health p99 ms during 10,000-stock pushes', healthLoad.p99Ms, 20),
      limitResult('embedded-latency', `poll p99 ms at ${CONNECTIONS} connections during 10,000-stock pushes`, pollLoad.p99Ms, 100),
      // Higher is better: pass when at least 300 req/s (limitResult's "≤" does not fit).
      {
        ...infoResult('embedded-latency', `poll req/s at ${CONNECTIONS} connections, quiet`, quiet.reqPerSec),
        target: '≥ 300',
        pass: quiet.reqPerSec >= 300,
      },
      infoResult('embedded-latency', 'pushes of 10,000 stocks per minute during the polls', (result.pushes * 60) / seconds),
      infoResult('embedded-latency', 'RSS MB idle (10,000 products seeded)', idleRss / MB),
      limitResult('embedded-latency', 'peak RSS MB during the pushes', peakBytes / MB, 450),
    ],
  };
}
