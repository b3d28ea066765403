/**
 * product-sync: `POST /api/v1/products` with 500 products per request, each with two pricelist
 * entries, 10 % of them with a changed field; against the same reads and writes done by hand over
 * plain pg (lock and read the stored rows, diff field by field, write the changed products and the
 * price items, in one transaction).
 */
import { Client } from 'pg';
import { TAKE_CLOCK } from '../lib/change-clock';
import { log, median, ratioResult, ROUNDS, timed, type Result } from '../lib/measure';
import { api, type Service } from '../lib/service';

const CATALOGUE = Number(process.env.BENCH_CATALOGUE ?? 5_000);
const PER_REQUEST = 500;

type Product = {
  external_id: string;
  erp_id: number;
  name: string;
  description: string;
  price: number;
  pricelists: Array<{ pricelist_external_id: string; pricelist_name: string; price: number }>;
};

/** The last version up to `v` that renamed product i (version r renames the tenth with i % 10 = r % 10). */
const lastRename = (i: number, v: number) => v - ((((v - (i % 10)) % 10) + 10) % 10);

/** Version `v` of the catalogue: against version v - 1, one product in ten has a new name. */
export function catalogue(prefix: string, v: number): Product[] {
  return Array.from({ length: CATALOGUE }, (_, i) => ({
    external_id: `${prefix}-${i}`,
    erp_id: i,
    name: `Product ${i}${lastRename(i, v) >= 1 ? ` v${lastRename(i, v)}` : ''}`,
    description: 'A product as an ERP would describe it, with a few words of text.',
    price: (i % 1000) / 10,
    pricelists: [
      { pricelist_external_id: 'RETAIL', pricelist_name: 'Retail', price: (i % 1000) / 10 },
      { pricelist_external_id: 'WHOLESALE', pricelist_name: 'Wholesale', price: (i % 1000) / 20 },
    ],
  }));
}

const chunks = <T>(xs: T[], n: number) => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n));

/** The shortest correct code for one batch: the same statements the service needs, by hand. */
export async function rawSync(client: Client, products: Product[], context: string): Promise<number> {
  await client.query('BEGIN');
  try {
    const stored = await client.query<{
      id: number;
      external_id: string;
      data: Record<string, unknown>;
      revision: number;
      field_revisions: Record<string, number>;
      erp_id: number | null;
    }>('SELECT id, external_id, data, revision, field_revisions, erp_id FROM products WHERE external_id = ANY($1) ORDER BY id FOR UPDATE', [
      products.map((p) => p.external_id),
    ]);
    const byId = new Map(stored.rows.map((r) => [r.external_id, r]));
    const changed: Array<{ id: number; revision: number; data: Record<string, unknown>; field_revisions: Record<string, number> }> = [];
    for (const { external_id, erp_id: _e, pricelists: _p, ...fields } of products) {
      const row = byId.get(external_id)!;
      const names = Object.keys(fields).filter(
        (k) => JSON.stringify(row.data[k]) !== JSON.stringify((fields as Record<string, unknown>)[k]),
      );
      if (names.length === 0) continue;
      const revision = row.revision + 1;
      changed.push({
        id: row.id,
        revision,
        data: { ...row.data, ...fields },
        field_revisions: { ...row.field_revisions, ...Object.fromEntries(names.map((n) => [n, revision])) },
      });
    }
    if (changed.length > 0) {
      await client.query(
        `WITH clock AS (${TAKE_CLOCK('products')})
         UPDATE products AS t SET data = v.data, context = $2, revision = v.revision, field_revisions = v.field_revisions,
                changed_fields = ARRAY(SELECT f.key FROM jsonb_each_text(v.field_revisions) f WHERE f.value::int > t.acked_revision ORDER BY 1),
                pending = true, updated_at = (SELECT stamp FROM clock)
           FROM jsonb_to_recordset($1::jsonb) AS v(id int, revision int, data jsonb, field_revisions jsonb) WHERE t.id = v.id`,
        [JSON.stringify(changed), context],
      );
    }
    const items = products.flatMap((p) => p.pricelists.map((i) => ({ ...i, product_external_id: p.external_id })));
    await client.query(
      `WITH clock AS (${TAKE_CLOCK('price_items')})
       INSERT INTO price_items AS t (pricelist_external_id, pricelist_name, product_external_id, price, revision, acked_revision,
                                     field_revisions, changed_fields, is_new, pending, created_at, updated_at)
       SELECT v.pricelist_external_id, v.pricelist_name, v.product_external_id, v.price, 1, 0, '{"price":1}', ARRAY['price'], true, true, now(),
              (SELECT stamp FROM clock)
         FROM jsonb_to_recordset($1::jsonb) AS v(pricelist_external_id text, pricelist_name text, product_external_id text, price float8)
       ON CONFLICT (pricelist_external_id, product_external_id) DO UPDATE SET
          price = EXCLUDED.price, pricelist_name = EXCLUDED.pricelist_name, previous_price = t.price,
          revision = t.revision + 1, field_revisions = t.field_revisions || jsonb_build_object('price', t.revision + 1),
          changed_fields = ARRAY['price'], pending = true, updated_at = EXCLUDED.updated_at
        WHERE t.price IS DISTINCT FROM EXCLUDED.price OR t.pricelist_name IS DISTINCT FROM EXCLUDED.pricelist_name`,
      [JSON.stringify(items)],
    );
    await client.query('COMMIT');
    return changed.length;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

/** A catalogue created through the service (not timed): the rounds then update it. */
export async function seedServiceCatalogue(service: Service, prefix: string): Promise<void> {
  for (const products of chunks(catalogue(prefix, 0), PER_REQUEST)) await api(service, 'POST', '/api/v1/products', { products });
}

/** One timed round of the service alone: version `round` of the catalogue in batches of 500; products/s. */
export async function serviceProductSyncRound(service: Service, prefix: string, round: number): Promise<number> {
  const batches = chunks(catalogue(prefix, round), PER_REQUEST);
  const { seconds } = await timed(async () => {
    for (const products of batches) {
      const r = await api<{ updated: number; errors: unknown[] }>(service, 'POST', '/api/v1/products', { products });
      if (r.updated !== PER_REQUEST / 10 || r.errors.length > 0)
        throw new Error(`unexpected product result ${JSON.stringify(r).slice(0, 200)}`);
    }
  });
  return CATALOGUE / seconds;
}

export async function runProductSync(service: Service, databaseUrl: string): Promise<{ results: Result[]; rounds: unknown[] }> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const rounds: Array<{ serviceProductsPerS: number; rawProductsPerS: number }> = [];
  try {
    // Both catalogues are created through the service; only updates are measured.
    for (const prefix of ['SVC', 'RAW']) await seedServiceCatalogue(service, prefix);
    for (let round = 1; round <= ROUNDS; round++) {
      const serviceProductsPerS = await serviceProductSyncRound(service, 'SVC', round);
      const rawBatches = chunks(catalogue('RAW', round), PER_REQUEST);
      const raw = await timed(async () => {
        for (const products of rawBatches) {
          if ((await rawSync(client, products, 'erp_sync')) !== PER_REQUEST / 10)
            throw new Error('raw baseline changed an unexpected number of products');
        }
      });
      const r = { serviceProductsPerS, rawProductsPerS: CATALOGUE / raw.seconds };
      log(`product-sync round ${round}: service ${r.serviceProductsPerS.toFixed(0)} products/s, raw SQL ${r.rawProductsPerS.toFixed(0)}`);
      rounds.push(r);
    }
  } finally {
    await client.end();
  }
  return {
    rounds,
    results: [
      ratioResult(
        'product-sync',
        'products/s',
        median(rounds.map((r) => r.serviceProductsPerS)),
        median(rounds.map((r) => r.rawProductsPerS)),
        0.3,
        'raw SQL, same reads and writes',
      ),
    ],
  };
}
