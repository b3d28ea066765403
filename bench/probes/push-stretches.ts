/**
 * Where a 10,000-stock push holds the event loop (issue 29, "Poll p99 during pushes"): one service
 * on the embedded store, `PUSHES` pushes back to back while one connection asks `/health` again
 * and again; prints the pushes' times and /health's latencies. With BENCH_NODE_ARGS="--cpu-prof
 * --cpu-prof-dir=DIR" the service writes a profile on stop: `tsx bench/lib/cpu-stretches.ts DIR/….cpuprofile`
 * then lists its busy stretches and what they spent. A development probe, not a scenario of `npm run bench`.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Agent, request } from 'node:http';
import { threadCpuSeconds } from '../lib/cpu';
import { percentile } from '../lib/measure';
import { api, startService, type Service } from '../lib/service';
import { stockBatch } from '../scenarios/stock-upsert';

const PUSHES = Number(process.env.PUSHES ?? 12);
/** HEALTH=0: no /health loop (its own requests would fill a profile's stretches). */
const HEALTH = process.env.HEALTH !== '0';

/**
 * /health every INTERVAL_MS whether or not the last one was answered (arrivals independent of the
 * service, as a webshop's are), on kept-alive connections; each latency in ms.
 */
function healthLoop(service: Service): { stop(): Promise<number[]> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const latencies: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const one = () => {
    const started = performance.now();
    const done = new Promise<void>((resolve) => {
      request(`${service.url}/health`, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - started);
          resolve();
        });
      })
        .on('error', () => resolve())
        .end();
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };
  const timer = setInterval(one, Number(process.env.INTERVAL_MS ?? 5));
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
      agent.destroy();
      return latencies;
    },
  };
}

async function main(): Promise<void> {
  const service = await startService({ backend: 'embedded' });
  let pushesFrom = 0;
  try {
    await api(service, 'POST', '/api/v1/stocks', { stocks: stockBatch('SUP-probe', 0) });
    // Bodies made before the clock starts: this process's own stretches would delay its probes.
    const bodies = Array.from({ length: PUSHES }, (_, k) => JSON.stringify({ stocks: stockBatch('SUP-probe', k + 1) }));
    const load = loadavg()[0]!.toFixed(2);
    pushesFrom = Date.now();
    // CPU of the service's main thread and of all its threads: what a push costs, whatever the neighbours do.
    const cpuBefore = threadCpuSeconds(service.pid);
    const health = HEALTH ? healthLoop(service) : { stop: async () => [0] };
    const times: number[] = [];
    for (let k = 1; k <= PUSHES; k++) {
      const started = performance.now();
      const res = await fetch(`${service.url}/api/v1/stocks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
        body: bodies[k - 1]!,
      });
      if (!res.ok) throw new Error(`push ${k}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      times.push(performance.now() - started);
    }
    const cpuAfter = threadCpuSeconds(service.pid);
    const latencies = (await health.stop()).sort((a, b) => a - b);
    const cpuMs = (pick: (m: Map<string, number>) => number) => (((pick(cpuAfter) - pick(cpuBefore)) * 1000) / PUSHES).toFixed(0);
    const all = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    console.log(
      `service CPU ms per push: main thread ${cpuMs((m) => m.get('main') ?? 0)}, all threads ${cpuMs(all)} (with the /health probes)`,
    );
    const f = (x: number) => x.toFixed(1);
    console.log(
      `pushes ms: median ${f([...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!)} (${times.map(f).join(' ')}); ` +
        `/health n=${latencies.length} p50 ${f(percentile(latencies, 50))} p90 ${f(percentile(latencies, 90))} p99 ${f(percentile(latencies, 99))} ` +
        `max ${f(latencies.at(-1)!)} ms, ${latencies.filter((l) => l > 10).length} over 10 ms; load ${load}`,
    );
  } finally {
    await service.stop();
  }
  if (process.env.LOOP_STRETCHES_FILE) {
    // Gaps of the event loop measured inside the service (bench/lib/loop-stretches.cjs), start-up excluded.
    const { gaps } = JSON.parse(readFileSync(process.env.LOOP_STRETCHES_FILE, 'utf8')) as { gaps: Array<[number, number, number]> };
    const during = gaps.filter(([, , at]) => at >= pushesFrom);
    const cpu = during.map(([, c]) => c).sort((a, b) => b - a);
    const wall = during.map(([w]) => w).sort((a, b) => b - a);
    console.log(
      `event loop gaps > 5 ms during the pushes: ${during.length}; CPU ms longest ${cpu.slice(0, 10).join(' ')}; ` +
        `wall ms longest ${wall.slice(0, 10).join(' ')}; CPU ms in gaps > 10: ${cpu
          .filter((c) => c > 10)
          .reduce((a, b) => a + b, 0)
          .toFixed(0)}`,
    );
  }
}

void main();
