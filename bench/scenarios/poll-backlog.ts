/**
 * poll-backlog (issue 18, ADR 0030): the poll's cost must not grow with the backlog. Two services
 * on PostgreSQL, one with 10,000 pending products and one with 1,000,000, polled alike
 * (`GET /api/v1/updated-products?limit=50`, 16 connections) in interleaved rounds. The total in
 * `meta` is the pending counters' sum, so both should serve within 10 % of each other; with a
 * count(*) of the pending rows the 1M side polled at a small fraction of the 10k side.
 *
 * The products are seeded with SQL (generate_series), not through the API, but with the columns
 * a push writes; the pending-count triggers count them in the same statement, which is checked.
 */
import { Client } from 'pg';
import { httpLoad, infoResult, log, median, ratioResult, ROUNDS, timed, type HttpLoad, type Result } from '../lib/measure';
import type { Service } from '../lib/service';

export const BACKLOG_SMALL = 10_000;
export const BACKLOG_LARGE = Number(process.env.BENCH_BACKLOG_ROWS ?? 1_000_000);
const CONNECTIONS = 16;
const DURATION_S = Number(process.env.BENCH_BACKLOG_SECONDS ?? 10);
const PAGE = 50;

/** `count` pending products as a push of {name, description, price} would store them. */
export async function seedPendingBySql(databaseUrl: string, count: number): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { seconds } = await timed(() =>
      client.query(
        `INSERT INTO products (external_id, erp_id, data, context, revision, acked_revision, field_revisions, changed_fields,
                               is_new, pending, created_at, updated_at)
         SELECT 'BACKLOG-' || i, i,
                jsonb_build_object('name', 'Product ' || i, 'description', 'A product as an ERP would describe it, with a few words of text.',
                                   'price', (i % 1000) / 10.0),
                'erp_sync', 1, 0, '{"description": 1, "name": 1, "price": 1}'::jsonb, ARRAY['description', 'name', 'price'],
                true, true, now(), now() - ($1::int - i) * interval '1 millisecond'
           FROM generate_series(1, $1::int) AS i`,
        [count],
      ),
    );
    await client.query('VACUUM ANALYZE products');
    // The triggers counted the rows in the INSERT itself; the poll's total must be exact.
    const { rows } = await client.query<{ rows: number; counted: number }>(
      `SELECT (SELECT count(*)::int FROM products WHERE pending) AS rows,
              (SELECT COALESCE(sum(delta), 0)::int FROM pending_count_deltas WHERE table_name = 'products') AS counted`,
    );
    if (rows[0]!.rows !== count || rows[0]!.counted !== count) throw new Error(`seeded ${count}: ${JSON.stringify(rows[0])}`);
    log(`poll-backlog: seeded ${count.toLocaleString('en')} pending products in ${seconds.toFixed(1)} s`);
  } finally {
    await client.end();
  }
}

async function poll(service: Service, expectedTotal: number, query = ''): Promise<HttpLoad> {
  const url = `${service.url}/api/v1/updated-products?limit=${PAGE}${query}`;
  const first = await fetch(url, { headers: { authorization: `Bearer ${service.token}` } });
  const total = ((await first.json()) as { meta: { total: number } }).meta.total;
  if (total !== expectedTotal) throw new Error(`meta.total ${total}, expected ${expectedTotal}`);
  return httpLoad({ url, connections: CONNECTIONS, durationS: DURATION_S, headers: { authorization: `Bearer ${service.token}` } });
}

/** Rounds alternate which side goes first, so that drift on the machine hits both alike. */
export async function runPollBacklog(
  small: { service: Service; databaseUrl: string },
  large: { service: Service; databaseUrl: string },
): Promise<{ results: Result[]; rounds: unknown[] }> {
  await seedPendingBySql(small.databaseUrl, BACKLOG_SMALL);
  await seedPendingBySql(large.databaseUrl, BACKLOG_LARGE);
  const rounds: Array<{ small: HttpLoad; large: HttpLoad }> = [];
  for (let round = 1; round <= ROUNDS; round++) {
    let smallLoad: HttpLoad;
    let largeLoad: HttpLoad;
    if (round % 2 === 1) {
      smallLoad = await poll(small.service, BACKLOG_SMALL);
      largeLoad = await poll(large.service, BACKLOG_LARGE);
    } else {
      largeLoad = await poll(large.service, BACKLOG_LARGE);
      smallLoad = await poll(small.service, BACKLOG_SMALL);
    }
    log(
      `poll-backlog round ${round}: ${BACKLOG_SMALL.toLocaleString('en')} pending ${smallLoad.reqPerSec.toFixed(0)} req/s (p99 ${smallLoad.p99Ms} ms), ` +
        `${BACKLOG_LARGE.toLocaleString('en')} pending ${largeLoad.reqPerSec.toFixed(0)} req/s (p99 ${largeLoad.p99Ms} ms)`,
    );
    rounds.push({ small: smallLoad, large: largeLoad });
  }
  // For contrast, once: with since the total counts the matching rows, as every poll did before.
  const counted = await poll(large.service, BACKLOG_LARGE, '&since=2000-01-01T00:00:00Z');
  log(`poll-backlog: ${BACKLOG_LARGE.toLocaleString('en')} pending, rows counted (since): ${counted.reqPerSec.toFixed(0)} req/s`);
  const smallRps = median(rounds.map((r) => r.small.reqPerSec));
  const largeRps = median(rounds.map((r) => r.large.reqPerSec));
  const largeLabel = `${BACKLOG_LARGE / 1_000_000}M`;
  return {
    rounds: [...rounds, { countedWithSince: counted }],
    results: [
      ratioResult('poll-backlog', `req/s at ${largeLabel} pending (${CONNECTIONS} conn)`, largeRps, smallRps, 0.9, '10k pending'),
      infoResult('poll-backlog', `p99 ms at 10k pending (${CONNECTIONS} conn)`, median(rounds.map((r) => r.small.p99Ms))),
      infoResult('poll-backlog', `p99 ms at ${largeLabel} pending (${CONNECTIONS} conn)`, median(rounds.map((r) => r.large.p99Ms))),
      infoResult('poll-backlog', `req/s at ${largeLabel} pending with since (rows counted, one run)`, counted.reqPerSec),
    ],
  };
}
