import type { FeedListing } from '../changes/ledger';
import type { PrismaClient, Stock } from '../generated/prisma/client';
import { notFound } from '../errors/app-error';
import type { PageShape, SyncResultShape } from '../changes/results';
import { changeListPage, fetchPage, type ChangeListSource, type PageArgs } from '../changes/page';
import { syncResult, validateBatch, type IndexedReport } from '../changes/tracked.service';
import { inPushTransaction, type TransactionSource } from '../changes/upsert';
import { isStale, toSourceTime } from '../changes/source-time';
import type { SqlRunner } from '../changes/ledger';
import { T } from '../changes/sql/fragments';
import { column, join, sql, trackedTable, type Sql } from '../changes/sql/sql';
import { takeChangeClock } from '../changes/change-clock';
import { forEachPaced, pace, stringifyPaced, type Pace } from '../pacing/pace';
import { MAX_STOCKS_PER_REQUEST, stockInput, type StockInput } from './stock.input';

/**
 * Bulk upsert built for whole stock lists (SPEC 4.3 rule 5): one INSERT … ON CONFLICT per shape of
 * entry (which prices were sent; a whole list has one shape). Quantity changes bump the revision
 * and flag the entry (isQuantityChanged); price-only changes update without flagging; identical
 * entries are not touched at all. An entry older (source_updated_at) than the stored one is
 * skipped (ADR 0027); a dry run rolls everything back (ADR 0028).
 */
export async function syncStocks(db: TransactionSource, records: readonly unknown[], dryRun = false): Promise<SyncResultShape> {
  // The push's CPU in slices, the event loop turning between them (ADR 0046).
  const p = pace('stocks: validate');
  const { valid, errors } = await validateBatch(records, stockInput, { argName: 'stocks', maxItems: MAX_STOCKS_PER_REQUEST }, p);
  // Later entries for the same (supplier, product) win, field by field, unless older at the source.
  const byKey = new Map<string, Keyed>();
  const reports: IndexedReport[] = [];
  await forEachPaced(valid, p, ({ index, value }) => {
    const k = `${value.supplier_external_id}\u0000${value.product_external_id}`;
    const earlier = byKey.get(k);
    const sent = toSourceTime(value.source_updated_at);
    if (earlier && isStale(sent, earlier.sourceTime)) {
      reports.push(skippedReport(index, value, sent!, earlier.sourceTime));
      return;
    }
    // The earlier entry is folded into this one: it counts once, at its last position.
    if (earlier)
      reports.push({ index: earlier.index, externalId: stockKey(earlier.entry), action: 'unchanged', changedFields: [], previous: {} });
    const entry = earlier ? { ...earlier.entry, ...definedOnly(value) } : value;
    byKey.set(k, { index, entry, sourceTime: latest(earlier?.sourceTime, sent) });
  });
  await p.step();
  const keyed = [...byKey.keys()].sort().map((key) => byKey.get(key)!);
  // Stored rows are read (and every entry reported one by one) when a time was sent, or in a dry run.
  const needStored = dryRun || keyed.some((k) => k.sourceTime !== undefined);
  if (keyed.length > 0) {
    for (const report of await inPushTransaction(db, dryRun, (tx) => writeStocks(tx, keyed, needStored, p))) reports.push(report);
  }
  await p.step();
  return syncResult(reports, errors, { argName: 'stocks', dryRun });
}

/**
 * One transaction of a stock push: the change clock, the stale check against the rows as stored
 * under it, the upserts and the kept source times. Returns the entries' reports.
 */
async function writeStocks(tx: SqlRunner, keyed: readonly Keyed[], needStored: boolean, p: Pace): Promise<IndexedReport[]> {
  const reports: IndexedReport[] = [];
  const stamp = await takeChangeClock(tx, 'stocks');
  // The clock serialises stock writers, so what is read here stays true until commit.
  const stored = needStored ? await storedStocks(tx, keyed) : new Map<string, StoredStock>();
  const applied = keyed.filter((k) => {
    // Without stored rows (no times sent, no dry run) every entry applies: no key to build.
    if (!needStored) return true;
    const before = stored.get(stockKey(k.entry));
    if (!isStale(k.sourceTime, before?.source_updated_at)) return true;
    reports.push(skippedReport(k.index, k.entry, k.sourceTime!, before!.source_updated_at!));
    return false;
  });
  // In key order, so that two lists written at once lock their common rows in the same order.
  const byShape = new Map<string, { shape: Shape; entries: Keyed[] }>();
  p.phase = 'stocks: write';
  await p.step();
  await forEachPaced(applied, p, (k) => {
    const shape = shapeOf(k.entry);
    const group = byShape.get(shape.key);
    if (group) group.entries.push(k);
    else byShape.set(shape.key, { shape, entries: [k] });
  });
  let created = 0;
  let written = 0;
  for (const { shape, entries } of byShape.values()) {
    // Every row with the same keys in the same order: JSON.stringify's fast path (a spread was 5 × slower).
    const rows = await stringifyPaced(entries, p, ({ entry, sourceTime }): StockRow => ({
      supplier_external_id: entry.supplier_external_id,
      product_external_id: entry.product_external_id,
      quantity: entry.quantity,
      purchase_price: entry.purchase_price,
      suggested_sale_price: entry.suggested_sale_price,
      source_updated_at: sourceTime?.toISOString() ?? null,
    }));
    const counts = await upsertStocks(tx, shape, rows, stamp);
    created += counts.created;
    written += counts.written;
  }
  await keepNewerSourceTimes(tx, applied);
  if (needStored) reports.push(...applied.map((k) => stockReport(k, stored.get(stockKey(k.entry)))));
  else reports.push(...countedReports(applied.length, created, written));
  return reports;
}

type Keyed = { index: number; entry: StockInput; sourceTime: Date | undefined };
type StockRow = StockInput & { source_updated_at: string | null };
type StoredStock = {
  supplier_external_id: string;
  product_external_id: string;
  quantity: number;
  purchase_price: number | null;
  suggested_sale_price: number | null;
  source_updated_at: Date | null;
};

const stockKey = (e: { supplier_external_id: string; product_external_id: string }) => `${e.supplier_external_id}/${e.product_external_id}`;
const latest = (a: Date | undefined, b: Date | undefined) => (a === undefined || (b !== undefined && b > a) ? b : a);

function skippedReport(index: number, entry: StockInput, sent: Date, stored: Date): IndexedReport {
  return { index, externalId: stockKey(entry), action: 'skipped', changedFields: [], previous: null, stale: { sent, stored } };
}

async function storedStocks(tx: SqlRunner, keyed: readonly Keyed[]): Promise<Map<string, StoredStock>> {
  const keys = JSON.stringify(
    keyed.map(({ entry }) => ({ supplier_external_id: entry.supplier_external_id, product_external_id: entry.product_external_id })),
  );
  const rows = await tx.$queryRaw<StoredStock[]>(sql`
    SELECT t.supplier_external_id, t.product_external_id, t.quantity, t.purchase_price, t.suggested_sale_price, t.source_updated_at
       FROM ${trackedTable('stocks')} t JOIN jsonb_to_recordset(${keys}::jsonb) AS v(supplier_external_id text, product_external_id text)
         ON t.supplier_external_id = v.supplier_external_id AND t.product_external_id = v.product_external_id`);
  return new Map(rows.map((r) => [stockKey(r), r]));
}

/** What an entry does against the stored one: the per-record report of a dry run. */
function stockReport({ index, entry }: Keyed, before: StoredStock | undefined): IndexedReport {
  const externalId = stockKey(entry);
  if (!before)
    return {
      index,
      externalId,
      action: 'created',
      changedFields: Object.keys(definedOnly(entry)).filter(isStockField).sort(),
      previous: null,
    };
  const changedFields = (['purchase_price', 'quantity', 'suggested_sale_price'] as const).filter(
    (f) => entry[f] !== undefined && entry[f] !== before[f],
  );
  const previous = Object.fromEntries(changedFields.map((f) => [f, before[f]]));
  return { index, externalId, action: changedFields.length > 0 ? 'updated' : 'unchanged', changedFields, previous };
}

const isStockField = (f: string) => f === 'quantity' || f === 'purchase_price' || f === 'suggested_sale_price';

/**
 * Without stored rows at hand (no source times, no dry run), the counts the upsert returned. One
 * (frozen) report per action, repeated: the answer only counts them, and 10,000 objects per push
 * were garbage to collect.
 */
function countedReports(total: number, created: number, written: number): IndexedReport[] {
  const report = (action: 'created' | 'updated' | 'unchanged'): IndexedReport =>
    Object.freeze({ index: -1, externalId: null, action, changedFields: [], previous: null });
  return [
    ...new Array<IndexedReport>(created).fill(report('created')),
    ...new Array<IndexedReport>(written - created).fill(report('updated')),
    ...new Array<IndexedReport>(total - written).fill(report('unchanged')),
  ];
}

/** An entry whose values did not change still keeps a newer source time (ADR 0027). */
async function keepNewerSourceTimes(tx: SqlRunner, applied: readonly Keyed[]): Promise<void> {
  const timed = applied.filter((k) => k.sourceTime !== undefined);
  if (timed.length === 0) return;
  const times = JSON.stringify(
    timed.map(({ entry, sourceTime }) => ({
      supplier_external_id: entry.supplier_external_id,
      product_external_id: entry.product_external_id,
      source_updated_at: sourceTime!.toISOString(),
    })),
  );
  await tx.$executeRaw(sql`
    UPDATE ${trackedTable('stocks')} AS t SET source_updated_at = v.source_updated_at
       FROM jsonb_to_recordset(${times}::jsonb) AS v(supplier_external_id text, product_external_id text, source_updated_at timestamptz)
      WHERE t.supplier_external_id = v.supplier_external_id AND t.product_external_id = v.product_external_id
        AND t.source_updated_at IS DISTINCT FROM v.source_updated_at`);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Which optional prices an entry carries: a price left out keeps its stored value. With the parts of
 * its upsert that depend on it (upsertPartsOf).
 */
type Shape = { key: string; purchasePrice: boolean; suggestedSalePrice: boolean } & UpsertParts;

type UpsertParts = { setPrices: Sql; anyChanged: Sql };

const QTY_CHANGED = sql`t.quantity IS DISTINCT FROM EXCLUDED.quantity`;
const EXCLUDED = sql`EXCLUDED`;

/** The SET of the prices and the condition of a write, for the prices a shape sends. */
function upsertPartsOf(purchasePrice: boolean, suggestedSalePrice: boolean): UpsertParts {
  // A price that was not sent keeps the stored one (and is NULL in a new entry).
  const prices = [
    ['purchase_price', purchasePrice],
    ['suggested_sale_price', suggestedSalePrice],
  ] as const;
  return {
    setPrices: join(
      prices.map(([col, sent]) => sql`${column(col)} = ${sent ? EXCLUDED : T}.${column(col)}`),
      ',\n          ',
    ),
    anyChanged: join(
      [QTY_CHANGED, ...prices.filter(([, sent]) => sent).map(([col]) => sql`t.${column(col)} IS DISTINCT FROM EXCLUDED.${column(col)}`)],
      ' OR ',
    ),
  };
}

/** The four shapes, made once with their statement's parts: one object and key string per entry was garbage for every push. */
const SHAPES: readonly Shape[] = [false, true].flatMap((purchasePrice) =>
  [false, true].map((suggestedSalePrice) => ({
    key: `${purchasePrice}/${suggestedSalePrice}`,
    purchasePrice,
    suggestedSalePrice,
    ...upsertPartsOf(purchasePrice, suggestedSalePrice),
  })),
);

function shapeOf(entry: StockInput): Shape {
  return SHAPES[(entry.purchase_price !== undefined ? 2 : 0) + (entry.suggested_sale_price !== undefined ? 1 : 0)]!;
}

/** `entries`: the JSON text of the group's StockRows. */
async function upsertStocks(tx: SqlRunner, shape: Shape, entries: string, stamp: Date): Promise<{ created: number; written: number }> {
  const rows = await tx.$queryRaw<Array<{ created: number; written: number }>>(sql`
    WITH written AS (
       INSERT INTO ${trackedTable('stocks')} AS t (supplier_external_id, product_external_id, quantity, purchase_price, suggested_sale_price,
                                revision, acked_revision, field_revisions, changed_fields, is_new, pending, created_at, updated_at,
                                source_updated_at)
       SELECT v.supplier_external_id, v.product_external_id, v.quantity, v.purchase_price, v.suggested_sale_price,
              1, 0, '{"quantity":1}'::jsonb, ARRAY['quantity'], true, true, now(), ${stamp}::timestamptz, v.source_updated_at
         FROM jsonb_to_recordset(${entries}::jsonb) AS v(supplier_external_id text, product_external_id text, quantity double precision,
                                                 purchase_price double precision, suggested_sale_price double precision,
                                                 source_updated_at timestamptz)
       ON CONFLICT (supplier_external_id, product_external_id) DO UPDATE SET
          quantity = EXCLUDED.quantity,
          ${shape.setPrices},
          previous_quantity = CASE WHEN ${QTY_CHANGED} THEN t.quantity ELSE t.previous_quantity END,
          revision = t.revision + (${QTY_CHANGED})::int,
          field_revisions = CASE WHEN ${QTY_CHANGED} THEN jsonb_build_object('quantity', t.revision + 1) ELSE t.field_revisions END,
          pending = t.pending OR ${QTY_CHANGED},
          changed_fields = CASE WHEN t.pending OR ${QTY_CHANGED} THEN ARRAY['quantity'] ELSE ARRAY[]::text[] END,
          updated_at = ${stamp}::timestamptz,
          source_updated_at = GREATEST(t.source_updated_at, EXCLUDED.source_updated_at)
        WHERE ${shape.anyChanged}
       RETURNING (t.xmax = 0) AS inserted
     )
     SELECT (count(*) FILTER (WHERE inserted))::int AS created, count(*)::int AS written FROM written`);
  return rows[0] ?? { created: 0, written: 0 };
}

/** Entries whose quantity changed since their last acknowledgement (the delta query). */
export function listChangedStocks(db: ChangeListSource, reader: FeedListing, args: PageArgs): Promise<PageShape<Stock>> {
  return changeListPage(db, 'stocks', reader, args);
}

/** All stock of one supplier, or of one product across suppliers. An unknown id is an empty page. */
export function listStocks(
  prisma: PrismaClient,
  filter: { supplierExternalId: string } | { productExternalId: string },
  args: PageArgs,
): Promise<PageShape<Stock>> {
  const orderBy = 'supplierExternalId' in filter ? { productExternalId: 'asc' as const } : { supplierExternalId: 'asc' as const };
  return fetchPage(args, filter, {
    find: (where, window) => prisma.stock.findMany({ where, orderBy, ...window }),
    count: (where) => prisma.stock.count({ where }),
  });
}

export async function lookupStock(prisma: PrismaClient, supplierId: string, productId: string): Promise<Stock> {
  const stock = await prisma.stock.findUnique({
    where: { supplierExternalId_productExternalId: { supplierExternalId: supplierId, productExternalId: productId } },
  });
  if (!stock) throw notFound('Stock entry', `${supplierId}/${productId}`);
  return stock;
}

/** The stock entries of each of `productIds`, by supplier: one statement for a page of products. */
export async function stocksOfProducts(prisma: PrismaClient, productIds: readonly string[]): Promise<Map<string, Stock[]>> {
  const rows = await prisma.stock.findMany({
    where: { productExternalId: { in: [...productIds] } },
    orderBy: [{ supplierExternalId: 'asc' }],
  });
  const byProduct = new Map<string, Stock[]>();
  for (const row of rows) {
    const entries = byProduct.get(row.productExternalId);
    if (entries) entries.push(row);
    else byProduct.set(row.productExternalId, [row]);
  }
  return byProduct;
}
