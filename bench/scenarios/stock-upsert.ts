/**
 * stock-upsert: `POST /api/v1/stocks` with 10,000 entries per request, half of them with a new
 * quantity, 20 requests; against one hand-written set-based statement per batch over plain pg
 * (the same rows, the same change flags, the change clock taken in the statement, and the same
 * pending-count and channel triggers, which fire on the table whoever writes; stocks keep no
 * history rows in the service either, so the raw statement is the floor of the same writes), and
 * against a per-row Prisma `upsert` loop.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { Client } from 'pg';
import { PrismaClient } from '../../src/generated/prisma/client';
import { TAKE_CLOCK } from '../lib/change-clock';
import { log, median, ratioResult, roundRatioResult, ROUNDS, timed, type Result } from '../lib/measure';
import { api, type Service } from '../lib/service';

export const ENTRIES = 10_000;
const REQUESTS = Number(process.env.BENCH_STOCK_REQUESTS ?? 20);
/** The per-row loop is slow by nature; a sample of rows measures its rate well enough. */
const PRISMA_LOOP_ROWS = Number(process.env.BENCH_PRISMA_LOOP_ROWS ?? 2_000);

type Entry = { supplier_external_id: string; product_external_id: string; quantity: number; purchase_price: number };

/**
 * Batch `k` of one writer: entry i gets quantity k when i and k have the same parity and keeps
 * k - 1 otherwise, so that every batch after the first changes exactly half of the entries.
 */
export function stockBatch(supplier: string, k: number, count = ENTRIES): Entry[] {
  return Array.from({ length: count }, (_, i) => ({
    supplier_external_id: supplier,
    product_external_id: `P-${i}`,
    quantity: i % 2 === k % 2 ? k : k - 1,
    purchase_price: 10 + (i % 50),
  }));
}

const RAW_UPSERT = `
  WITH clock AS (${TAKE_CLOCK('stocks')})
  INSERT INTO stocks AS t (supplier_external_id, product_external_id, quantity, purchase_price,
                           revision, acked_revision, field_revisions, changed_fields, is_new, pending, created_at, updated_at)
  SELECT s, p, q, pp, 1, 0, '{"quantity":1}', ARRAY['quantity'], true, true, now(), (SELECT stamp FROM clock)
    FROM unnest($1::text[], $2::text[], $3::float8[], $4::float8[]) AS v(s, p, q, pp)
  ON CONFLICT (supplier_external_id, product_external_id) DO UPDATE SET
     quantity = EXCLUDED.quantity,
     purchase_price = EXCLUDED.purchase_price,
     previous_quantity = CASE WHEN t.quantity <> EXCLUDED.quantity THEN t.quantity ELSE t.previous_quantity END,
     revision = t.revision + (t.quantity <> EXCLUDED.quantity)::int,
     field_revisions = CASE WHEN t.quantity <> EXCLUDED.quantity THEN jsonb_build_object('quantity', t.revision + 1) ELSE t.field_revisions END,
     pending = t.pending OR t.quantity <> EXCLUDED.quantity,
     changed_fields = ARRAY['quantity'],
     updated_at = EXCLUDED.updated_at
   WHERE t.quantity <> EXCLUDED.quantity OR t.purchase_price IS DISTINCT FROM EXCLUDED.purchase_price`;

export function rawUpsert(client: Client, entries: Entry[]) {
  return client.query(RAW_UPSERT, [
    entries.map((e) => e.supplier_external_id),
    entries.map((e) => e.product_external_id),
    entries.map((e) => e.quantity),
    entries.map((e) => e.purchase_price),
  ]);
}

async function prismaLoop(prisma: PrismaClient, entries: Entry[]): Promise<void> {
  for (const e of entries) {
    await prisma.stock.upsert({
      where: {
        supplierExternalId_productExternalId: { supplierExternalId: e.supplier_external_id, productExternalId: e.product_external_id },
      },
      create: {
        supplierExternalId: e.supplier_external_id,
        productExternalId: e.product_external_id,
        quantity: e.quantity,
        purchasePrice: e.purchase_price,
      },
      update: { quantity: e.quantity, purchasePrice: e.purchase_price },
    });
  }
}

/** Each writer works on its own supplier's rows of the same table. */
export async function runStockUpsert(service: Service, databaseUrl: string): Promise<{ results: Result[]; rounds: unknown[] }> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
  const rounds: Array<{ serviceRowsPerS: number; rawRowsPerS: number; prismaLoopRowsPerS: number }> = [];
  try {
    // The first batch creates the rows; the measured ones update them.
    await api(service, 'POST', '/api/v1/stocks', { stocks: stockBatch('SUP-service', 0) });
    await rawUpsert(client, stockBatch('SUP-raw', 0));
    await prismaLoop(prisma, stockBatch('SUP-prisma', 0, PRISMA_LOOP_ROWS));
    let k = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const first = k + 1;
      k += REQUESTS;
      const batches = (supplier: string) => Array.from({ length: REQUESTS }, (_, i) => stockBatch(supplier, first + i));
      const serviceBatches = batches('SUP-service');
      const svc = await timed(async () => {
        for (const stocks of serviceBatches) {
          const result = await api<{ updated: number; errors: unknown[] }>(service, 'POST', '/api/v1/stocks', { stocks });
          if (result.updated !== ENTRIES / 2 || result.errors.length > 0)
            throw new Error(`unexpected stock result ${JSON.stringify(result).slice(0, 200)}`);
        }
      });
      const rawBatches = batches('SUP-raw');
      const raw = await timed(async () => {
        for (const entries of rawBatches) await rawUpsert(client, entries);
      });
      const loop = await timed(() => prismaLoop(prisma, stockBatch('SUP-prisma', round, PRISMA_LOOP_ROWS)));
      const r = {
        serviceRowsPerS: (REQUESTS * ENTRIES) / svc.seconds,
        rawRowsPerS: (REQUESTS * ENTRIES) / raw.seconds,
        prismaLoopRowsPerS: PRISMA_LOOP_ROWS / loop.seconds,
      };
      log(
        `stock-upsert round ${round}: service ${r.serviceRowsPerS.toFixed(0)} rows/s, raw SQL ${r.rawRowsPerS.toFixed(0)}, Prisma loop ${r.prismaLoopRowsPerS.toFixed(0)}`,
      );
      rounds.push(r);
    }
  } finally {
    await client.end();
    await prisma.$disconnect();
  }
  const value = median(rounds.map((r) => r.serviceRowsPerS));
  return {
    rounds,
    results: [
      ratioResult('stock-upsert', 'rows/s', value, median(rounds.map((r) => r.rawRowsPerS)), 0.5, 'raw set-based SQL upsert'),
      // Issue 33: a push takes at most 1.3 × the raw upsert's time, i.e. ≥ 1/1.3 of its rate, per round.
      roundRatioResult(
        'stock-upsert',
        'rows/s against the raw upsert doing the same writes (push time ≤ 1.3 × raw)',
        rounds.map((r) => ({ value: r.serviceRowsPerS, baseline: r.rawRowsPerS })),
        0.77,
        'the raw upsert (same rows, change flags, clock and counter triggers; stocks keep no history on either side)',
      ),
      ratioResult('stock-upsert', 'rows/s', value, median(rounds.map((r) => r.prismaLoopRowsPerS)), 20, 'per-row Prisma upsert loop'),
    ],
  };
}

/** The service alone: the first batch, which creates the rows (not timed). */
export async function prepareServiceStockUpsert(service: Service): Promise<void> {
  await api(service, 'POST', '/api/v1/stocks', { stocks: stockBatch('SUP-service', 0) });
}

/**
 * One timed round of the service alone: `requests` batches of `supplier`'s rows (default REQUESTS of
 * SUP-service) from batch `first` on, each changing half of them (checked); rows/s.
 */
export async function serviceStockUpsertRound(
  service: Service,
  first: number,
  { supplier = 'SUP-service', requests = REQUESTS }: { supplier?: string; requests?: number } = {},
): Promise<number> {
  const { seconds } = await timed(async () => {
    for (let i = 0; i < requests; i++) {
      const result = await api<{ updated: number; errors: unknown[] }>(service, 'POST', '/api/v1/stocks', {
        stocks: stockBatch(supplier, first + i),
      });
      if (result.updated !== ENTRIES / 2 || result.errors.length > 0)
        throw new Error(`unexpected stock result ${JSON.stringify(result).slice(0, 200)}`);
    }
  });
  return (requests * ENTRIES) / seconds;
}

export const STOCK_REQUESTS_PER_ROUND = REQUESTS;

/** The service alone, ROUNDS rounds, median rows/s (embedded-durability). */
export async function serviceStockUpsertRate(service: Service): Promise<number> {
  await prepareServiceStockUpsert(service);
  const rates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) rates.push(await serviceStockUpsertRound(service, 1 + round * REQUESTS));
  return median(rates);
}
