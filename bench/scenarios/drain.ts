/**
 * drain: a webshop client working through 100,000 pending products, 500 at a time: list the page,
 * acknowledge its ids with batch-delete, until nothing is pending. Against the same loop over plain
 * pg (page, total and listing mark, then the ledger's acknowledgement), on the same rows made
 * pending again between runs.
 */
import { Client } from 'pg';
import { log, median, ratioResult, ROUNDS, timed, type Result } from '../lib/measure';
import { api, type Service } from '../lib/service';

export const DRAIN_PRODUCTS = Number(process.env.BENCH_DRAIN_PRODUCTS ?? 100_000);
const PAGE = 500;

async function seed(service: Service): Promise<void> {
  for (let i = 0; i < DRAIN_PRODUCTS; i += 5000) {
    const products = Array.from({ length: Math.min(5000, DRAIN_PRODUCTS - i) }, (_, j) => ({
      external_id: `DRAIN-${i + j}`,
      erp_id: i + j,
      name: `Product ${i + j}`,
      price: ((i + j) % 1000) / 10,
    }));
    await api(service, 'POST', '/api/v1/products', { products });
  }
}

/** Every product pending again, as if just pushed, and the table vacuumed: both runs start alike. */
async function makeAllPending(client: Client): Promise<void> {
  await client.query(`UPDATE products SET acked_revision = 0, listed_revisions = '{}', pending = true, is_new = true, acknowledged_at = NULL,
                             changed_fields = ARRAY(SELECT jsonb_object_keys(field_revisions) ORDER BY 1)`);
  await client.query('VACUUM ANALYZE products');
}

async function serviceDrain(service: Service): Promise<number> {
  let drained = 0;
  for (;;) {
    const page = await api<{ payload: Array<{ id: number }> }>(service, 'GET', `/api/v1/updated-products?limit=${PAGE}`);
    if (page.payload.length === 0) return drained;
    const ack = await api<{ acknowledged: number }>(service, 'POST', '/api/v1/updated-products/batch-delete', {
      ids: page.payload.map((p) => p.id),
    });
    drained += ack.acknowledged;
  }
}

/** Listings are remembered per reader (ADR 0002); the raw drain is one reader. */
const READER = 'token:baseline';

async function rawDrain(client: Client): Promise<number> {
  let drained = 0;
  for (;;) {
    const [page] = await Promise.all([
      client.query(
        `SELECT id, external_id, erp_id, is_new, changed_fields, context, data, updated_at, revision
           FROM products WHERE pending ORDER BY updated_at, id LIMIT ${PAGE}`,
      ),
      client.query('SELECT count(*)::int AS n FROM products WHERE pending'),
    ]);
    if (page.rows.length === 0) return drained;
    await client.query(
      `UPDATE products AS t SET listed_revisions = t.listed_revisions || jsonb_build_object($2::text, v.revision)
         FROM jsonb_to_recordset($1::jsonb) AS v(id int, revision int)
        WHERE t.id = v.id AND (t.listed_revisions ->> $2::text) IS DISTINCT FROM v.revision::text`,
      [JSON.stringify(page.rows.map((r) => ({ id: r.id, revision: r.revision }))), READER],
    );
    // The body a webshop would read, as the service builds it.
    JSON.stringify(page.rows);
    const acked = await client.query(
      `UPDATE products AS t SET acked_revision = GREATEST(t.acked_revision, LEAST(t.revision, (t.listed_revisions ->> $2::text)::int)),
              changed_fields = ARRAY(SELECT f.key FROM jsonb_each_text(t.field_revisions) f
                                      WHERE f.value::int > GREATEST(t.acked_revision, LEAST(t.revision, (t.listed_revisions ->> $2::text)::int)) ORDER BY 1),
              pending = t.revision > GREATEST(t.acked_revision, LEAST(t.revision, (t.listed_revisions ->> $2::text)::int)),
              is_new = false, acknowledged_at = now()
        WHERE t.id = ANY($1::int[]) AND t.listed_revisions ? $2::text`,
      [page.rows.map((r) => r.id), READER],
    );
    drained += acked.rowCount ?? 0;
  }
}

export async function runDrain(service: Service, databaseUrl: string): Promise<{ results: Result[]; rounds: unknown[] }> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const rounds: Array<{ serviceRecordsPerS: number; rawRecordsPerS: number }> = [];
  try {
    // Only this scenario's products may be pending.
    await client.query('UPDATE products SET pending = false');
    await seed(service);
    for (let round = 1; round <= ROUNDS; round++) {
      await makeAllPending(client);
      const svc = await timed(() => serviceDrain(service));
      await makeAllPending(client);
      const raw = await timed(() => rawDrain(client));
      const total = (await client.query('SELECT count(*)::int AS n FROM products')).rows[0].n as number;
      if (svc.result !== total || raw.result !== total) throw new Error(`drained ${svc.result} and ${raw.result} of ${total}`);
      const r = { serviceRecordsPerS: total / svc.seconds, rawRecordsPerS: total / raw.seconds };
      log(
        `drain round ${round}: service ${r.serviceRecordsPerS.toFixed(0)} records/s, raw SQL ${r.rawRecordsPerS.toFixed(0)} (${total} records)`,
      );
      rounds.push(r);
    }
  } finally {
    await client.end();
  }
  return {
    rounds,
    results: [
      ratioResult(
        'drain',
        'records/s',
        median(rounds.map((r) => r.serviceRecordsPerS)),
        median(rounds.map((r) => r.rawRecordsPerS)),
        0.5,
        'raw SQL, same loop',
      ),
    ],
  };
}
