/**
 * PostgreSQL's CPU per queue statement, named prepared (the worker thread's `queueDatabaseOverPg`)
 * against the same text unnamed (parsed, analysed and planned every time), read from each
 * backend's /proc stat; 3 alternating rounds of 1,000 each. The result statement gets a batch of
 * one for an item that is not held (so it writes nothing), the claim finds nothing due: the cost
 * measured is the statement's own, as when reports come one at a time.
 *
 * On a fresh database migrated by the service's CLI (BENCH_DATABASE_URL's server):
 *
 *   npx tsx bench/probes/queue-statement-cpu.ts
 */
import { Client } from 'pg';
import { queueDatabaseOverPg } from '../../src/queue/sql/queue-database';
import { recordResults } from '../../src/queue/sql/record-results';
import { claimDueItems } from '../../src/queue/sql/claim-due-items';
import { processCpuSeconds } from '../lib/cpu';
import { freshDatabase } from '../lib/service';

/** CPU milliseconds a backend has used so far. */
const cpu = (pid: number) => processCpuSeconds(pid) * 1000;

void (async () => {
  const database = await freshDatabase();
  const url = database.url;
  const named = new Client({ connectionString: url });
  await named.connect();
  const plain = new Client({ connectionString: url });
  await plain.connect();
  const pidOf = async (c: Client) => (await c.query('select pg_backend_pid() as p')).rows[0].p as number;
  const pids = { named: await pidOf(named), plain: await pidOf(plain) };
  const dbs = {
    named: queueDatabaseOverPg(named as never),
    plain: {
      $queryRaw: async (s: TemplateStringsArray, ...v: unknown[]) =>
        (
          await plain.query(
            s.reduce((a, p, i) => `${a}$${i}${p}`),
            v,
          )
        ).rows,
    } as never,
  };
  const N = 1000;
  const result = (i: number) => [
    {
      id: 900000 + i,
      lease_token: 'x',
      status: 'completed' as const,
      at: new Date().toISOString(),
      status_code: 200,
      error: null,
      next_attempt_at: null,
      counted: true,
      attempt: 1,
      started_at: new Date().toISOString(),
      duration_ms: 3,
      outcome: 'success',
      http_status: 200,
      attempt_error: null,
      response_body: null,
      retry_after: null,
    },
  ];
  const out: Record<string, number[]> = { 'named result': [], 'plain result': [], 'named claim': [], 'plain claim': [] };
  for (let round = 0; round < 3; round++)
    for (const k of (round % 2 ? ['plain', 'named'] : ['named', 'plain']) as Array<'named' | 'plain'>) {
      let c0 = cpu(pids[k]);
      for (let i = 0; i < N; i++) await recordResults(dbs[k], result(i) as never, { now: new Date(), disableAfterMs: 0 });
      out[`${k} result`]!.push((cpu(pids[k]) - c0) / N);
      c0 = cpu(pids[k]);
      for (let i = 0; i < N; i++)
        await claimDueItems(dbs[k], { now: new Date(), token: 'x', leaseUntil: new Date(Date.now() + 10000), limit: 100, exclude: [] });
      out[`${k} claim`]!.push((cpu(pids[k]) - c0) / N);
    }
  for (const [k, v] of Object.entries(out)) console.log(k, v.map((x) => x.toFixed(3)).join(' / '), 'ms of backend CPU per statement');
  await named.end();
  await plain.end();
  await database.drop();
})();
