/**
 * Side by side, the embedded-latency scenario's loaded phase (bench/scenarios/embedded-latency.ts)
 * for several builds or chunk sizes (ADR 0040; not part of `npm run bench`, which rewrites the
 * results table): each variant on a fresh data directory with 10,000 pending products, then
 * `/health` at 1 connection and the poll at 4 for BENCH_LATENCY_SECONDS while 10,000-stock pushes
 * run back to back. Rounds are interleaved, the order rotating each round; medians are printed.
 *
 *   npx tsx bench/embedded-chunks.ts main=/work/main chunk0=.:0 chunk1000=.:1000
 *
 * A variant is name=root[:EMBEDDED_PUSH_CHUNK_RECORDS]; a root is a built checkout (bin/, dist/).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { httpLoad, log, median } from './lib/measure';
import { api, runCliCommand, spawnServe } from './lib/service';
import { seedPendingProducts, POLL_PRODUCTS } from './scenarios/poll';
import { stockBatch } from './scenarios/stock-upsert';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION_S = Number(process.env.BENCH_LATENCY_SECONDS ?? 20);

type Variant = { name: string; root: string; chunk: string | undefined };
type Sample = { healthP99: number; pollP99: number; pollP50: number; pollRps: number; pushes: number; pushSeconds: number };

const variants: Variant[] = process.argv.slice(2).map((arg) => {
  const [name, spec] = arg.split('=') as [string, string];
  const [root, chunk] = spec.split(':');
  return { name, root: path.resolve(root!), chunk };
});

async function measure(variant: Variant): Promise<Sample> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sgw-chunks-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: '',
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    PORT: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_READ_PER_MINUTE: '1000000000',
    RATE_LIMIT_WRITE_PER_MINUTE: '1000000000',
    ...(variant.chunk !== undefined ? { EMBEDDED_PUSH_CHUNK_RECORDS: variant.chunk } : {}),
  };
  delete env.DATABASE_URL;
  const token = (await runCliCommand(['token', 'create', '--name', 'bench-chunks'], env, variant.root)).trim().split('\n').pop()!;
  const { child, url } = await spawnServe(env, { root: variant.root });
  child.stdout!.resume();
  const service = { url, token };
  try {
    await seedPendingProducts(service as never, POLL_PRODUCTS);
    await api(service, 'POST', '/api/v1/stocks', { stocks: stockBatch('SUP-latency', 0) });
    let running = true;
    const pushTimes: number[] = [];
    const pushes = (async () => {
      for (let k = 1; running; k++) {
        const started = performance.now();
        await api(service, 'POST', '/api/v1/stocks', { stocks: stockBatch('SUP-latency', k) });
        pushTimes.push((performance.now() - started) / 1000);
      }
    })();
    const headers = { authorization: `Bearer ${token}` };
    const [health, poll] = await Promise.all([
      httpLoad({ url: `${url}/health`, connections: 1, durationS: DURATION_S }),
      httpLoad({ url: `${url}/api/v1/updated-products?limit=50`, connections: 4, durationS: DURATION_S, headers, allowTimeouts: true }),
    ]);
    running = false;
    await pushes;
    return {
      healthP99: health.p99Ms,
      pollP99: poll.p99Ms,
      pollP50: poll.p50Ms,
      pollRps: poll.reqPerSec,
      pushes: pushTimes.length,
      pushSeconds: median(pushTimes),
    };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const samples = new Map<string, Sample[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
    for (const variant of order) {
      const load = loadavg()[0]!.toFixed(1);
      const s = await measure(variant);
      samples.get(variant.name)!.push(s);
      log(
        `round ${round + 1} ${variant.name} (load ${load}): /health p99 ${s.healthP99} ms, poll p99 ${s.pollP99} ms ` +
          `(p50 ${s.pollP50}, ${s.pollRps.toFixed(0)} req/s), ${s.pushes} pushes (median ${s.pushSeconds.toFixed(2)} s)`,
      );
    }
  }
  log(
    `medians of ${ROUNDS} rounds, ${DURATION_S} s each (load now ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}):`,
  );
  for (const [name, list] of samples) {
    const m = (f: (s: Sample) => number) => median(list.map(f));
    log(
      `${name}: /health p99 ${m((s) => s.healthP99)} ms, poll p99 ${m((s) => s.pollP99)} ms, poll p50 ${m((s) => s.pollP50)} ms, ` +
        `poll ${m((s) => s.pollRps).toFixed(0)} req/s, pushes ${m((s) => s.pushes)}, push ${m((s) => s.pushSeconds).toFixed(2)} s`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
