/**
 * Issue 13's fast restart: the embedded store with 100,000 pending products, `kill -9`, and the
 * time from starting `serve` again (as `npm start` runs it) to `/ready` answering 200. The lock
 * of the dead process is taken over at once (ADR 0012); what remains is the process start, the
 * WebAssembly store's recovery and the application's own start.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { limitResult, log, median, ROUNDS, type Result } from '../lib/measure';
import { spawnServe, startService } from '../lib/service';
import { seedPendingProducts } from './poll';

const RECORDS = 100_000;
const READY_WITHIN_MS = 5_000;

export async function runCrashRestart(): Promise<{ results: Result[]; rounds: number[] }> {
  const service = await startService({ backend: 'pglite' });
  await seedPendingProducts(service, RECORDS);
  await service.crash();
  const rounds: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const started = process.hrtime.bigint();
      const { child, url } = await spawnServe(service.env);
      child.stdout!.resume();
      while ((await fetch(`${url}/ready`).catch(() => undefined))?.status !== 200) await sleep(20);
      rounds.push(Number(process.hrtime.bigint() - started) / 1e6);
      log(`crash-restart round ${round + 1}: ready ${rounds.at(-1)!.toFixed(0)} ms after start`);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  } finally {
    // Every process on the store is dead by now: this only removes the data directory.
    await service.stop();
  }
  return {
    results: [limitResult('crash-restart', `kill -9 → /ready ms (embedded, ${RECORDS / 1000}k records)`, median(rounds), READY_WITHIN_MS)],
    rounds,
  };
}
