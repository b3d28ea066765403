/**
 * realistic-day (issue 18): a working day compressed into REALISTIC_DAY_MINUTES (default 5). The ERP
 * pushes its 10,000 stock entries every 30 s (a fifth with a new quantity) and 500 of 5,000
 * products every 10 s (each with a new price); the webshop polls and acknowledges products and
 * stocks from 4 concurrent loops (two per list, pages of 200 at offsets 0 and 200, a 500 ms
 * pause when a list is empty); 20 failure reports a second (open loop) with one webhook
 * configuration. Reports p50/p99 of each operation and the pending age p99: from sending the push
 * that first changed a record since its last acknowledgement to the answer to the acknowledgement
 * that covered it (a record changed again after it was listed and before its ack is not sampled). The backlog of the initial load is drained before the clock
 * starts; afterwards the webshop drains what is left (at most a minute) so that late changes count.
 */
import { startWebhookReceiver } from '../lib/failure-load';
import { infoResult, limitResult, log, percentile, type Result } from '../lib/measure';
import type { Service } from '../lib/service';

export const REALISTIC_DAY_MINUTES = Number(process.env.REALISTIC_DAY_MINUTES ?? 5);
const STOCKS = 10_000;
const STOCK_EVERY_MS = 30_000;
const PRODUCTS = 5_000;
const PRODUCTS_PER_PUSH = 500;
const PRODUCT_EVERY_MS = 10_000;
const FAILURES_PER_S = 20;
const PAGE = 200;
const SUPPLIER = 'DAY-SUPPLIER';

type Op = 'stock push' | 'product push' | 'product poll' | 'stock poll' | 'product ack' | 'stock ack' | 'failure report';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the service's answers, read by field

const LISTS = {
  product: { list: '/api/v1/updated-products', ack: '/api/v1/updated-products/batch-delete', key: (r: Json) => String(r.externalId) },
  stock: {
    list: '/api/v1/stocks/changed',
    ack: '/api/v1/stocks/changed/batch-delete',
    key: (r: Json) => `${r.supplierExternalId}/${r.productExternalId}`,
  },
} as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runRealisticDay(service: Service, backend: string): Promise<Result[]> {
  const latencies = new Map<Op, number[]>();
  const ages = { product: [] as number[], stock: [] as number[] };
  const firstPush = { product: new Map<string, number>(), stock: new Map<string, number>() };
  let errors = 0;
  let retriedAfter429 = 0;
  let measuring = false;

  async function call(op: Op, method: string, route: string, body?: unknown): Promise<Json | undefined> {
    const started = performance.now();
    try {
      const send = () =>
        fetch(`${service.url}${route}`, {
          method,
          headers: { authorization: `Bearer ${service.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      let res = await send();
      // A well-behaved client waits as told and asks again (issue 30: one token's expensive reads
      // run two at a time); the wait counts in the operation's latency.
      for (let attempt = 0; res.status === 429 && attempt < 5; attempt++) {
        await res.text();
        retriedAfter429++;
        await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
        res = await send();
      }
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${route} → ${res.status}: ${text.slice(0, 200)}`);
      if (measuring) {
        if (!latencies.has(op)) latencies.set(op, []);
        latencies.get(op)!.push(performance.now() - started);
      }
      return JSON.parse(text) as Json;
    } catch (error) {
      errors++;
      log(`realistic-day: ${String(error)}`);
      return undefined;
    }
  }

  const quantities = Array.from({ length: STOCKS }, () => 0);
  async function pushStocks(k: number): Promise<void> {
    const changed: string[] = [];
    const stocks = quantities.map((q, i) => {
      if (k === 0 || i % 5 === k % 5) {
        quantities[i] = q + 1;
        changed.push(`${SUPPLIER}/DAY-P-${i}`);
      }
      return { supplier_external_id: SUPPLIER, product_external_id: `DAY-P-${i}`, quantity: quantities[i]!, purchase_price: 10 };
    });
    // Stamped when sent: a poll may list and acknowledge the rows before the push's answer arrives.
    const at = Date.now();
    for (const key of changed) if (!firstPush.stock.has(key)) firstPush.stock.set(key, at);
    await call('stock push', 'POST', '/api/v1/stocks', { stocks });
  }
  async function pushProducts(batch: number, count = PRODUCTS_PER_PUSH): Promise<void> {
    const start = (batch * PRODUCTS_PER_PUSH) % PRODUCTS;
    const products = Array.from({ length: count }, (_, j) => ({
      external_id: `DAY-P-${(start + j) % PRODUCTS}`,
      erp_id: (start + j) % PRODUCTS,
      name: `Product ${(start + j) % PRODUCTS}`,
      description: 'A product as an ERP would describe it, with a few words of text.',
      price: batch + 1,
    }));
    const at = Date.now();
    for (const p of products) if (!firstPush.product.has(p.external_id)) firstPush.product.set(p.external_id, at);
    await call('product push', 'POST', '/api/v1/products', { products });
  }

  const receiver = await startWebhookReceiver(service, 'product');
  let polling = true;
  const totals = { product: -1, stock: -1 };
  async function webshop(kind: 'product' | 'stock', offset: number): Promise<void> {
    const list = LISTS[kind];
    while (polling) {
      const page = await call(`${kind} poll`, 'GET', `${list.list}?limit=${PAGE}&offset=${offset}`);
      const rows: Json[] = page?.payload ?? [];
      if (offset === 0 && page) totals[kind] = Number(page.meta?.total ?? rows.length);
      if (rows.length === 0) {
        await sleep(500);
        continue;
      }
      if ((await call(`${kind} ack`, 'POST', list.ack, { ids: rows.map((r) => r.id) })) === undefined) continue;
      const at = Date.now();
      for (const row of rows) {
        const key = list.key(row);
        const pushed = firstPush[kind].get(key);
        if (pushed === undefined) continue; // acknowledged already by the other loop
        firstPush[kind].delete(key);
        if (measuring) ages[kind].push(at - pushed);
      }
    }
  }

  try {
    log(`realistic-day (${backend}): initial load`);
    await pushStocks(0);
    for (let b = 0; b < PRODUCTS / PRODUCTS_PER_PUSH; b++) await pushProducts(b);
    const loops = [webshop('product', 0), webshop('product', PAGE), webshop('stock', 0), webshop('stock', PAGE)];
    const drained = async (limitMs: number) => {
      const until = Date.now() + limitMs;
      while (Date.now() < until && (totals.product !== 0 || totals.stock !== 0)) await sleep(200);
    };
    await drained(120_000);
    firstPush.product.clear();
    firstPush.stock.clear();

    log(`realistic-day (${backend}): ${REALISTIC_DAY_MINUTES} min`);
    measuring = true;
    const end = Date.now() + REALISTIC_DAY_MINUTES * 60_000;
    const every = async (ms: number, work: (n: number) => Promise<void>) => {
      for (let n = 1; Date.now() < end; n++) {
        const next = Date.now() + ms;
        await work(n);
        await sleep(Math.max(0, Math.min(next, end) - Date.now()));
      }
    };
    let reports = 0;
    const reporting: Array<Promise<unknown>> = [];
    const reporter = setInterval(() => {
      reports++;
      reporting.push(
        call('failure report', 'POST', '/api/v1/failures', {
          entity_type: 'product',
          external_id: `DAY-F-${reports}`,
          source: 'erp',
          error_message: 'Price must not be negative',
          error_details: [{ field: 'price', message: 'must be >= 0' }],
        }),
      );
    }, 1000 / FAILURES_PER_S);
    await Promise.all([every(STOCK_EVERY_MS, (n) => pushStocks(n)), every(PRODUCT_EVERY_MS, (n) => pushProducts(n + 100))]);
    clearInterval(reporter);
    await Promise.all(reporting);
    await drained(60_000);
    polling = false;
    await Promise.all(loops);
    measuring = false;
    await sleep(1_000);
    const delivered = (await receiver.arrivals()).deliveries;

    const results: Result[] = [];
    for (const [op, times] of latencies) {
      const sorted = [...times].sort((a, b) => a - b);
      results.push(
        infoResult('realistic-day', `${op} p50 ms (${backend})`, percentile(sorted, 50)),
        infoResult('realistic-day', `${op} p99 ms (${backend})`, percentile(sorted, 99)),
      );
    }
    for (const kind of ['product', 'stock'] as const) {
      const sorted = [...ages[kind]].sort((a, b) => a - b);
      results.push(
        infoResult(
          'realistic-day',
          `${kind} pending age p99 ms, push → ack (${backend}, ${sorted.length} records)`,
          sorted.length ? percentile(sorted, 99) : NaN,
        ),
      );
      results.push(infoResult('realistic-day', `${kind} changes pending at the end (${backend})`, totals[kind]));
    }
    results.push(
      infoResult('realistic-day', `failure deliveries / reports (${backend})`, delivered / Math.max(1, reports)),
      limitResult('realistic-day', `errors (${backend})`, errors, 0),
      infoResult('realistic-day', `requests asked again after a 429 (${backend})`, retriedAfter429),
    );
    return results;
  } finally {
    polling = false;
    receiver.close();
  }
}
