/**
 * Issue 30, "Memory is never the way out": the service as `npm start` runs it (192 MB heap), on
 * the embedded store and on PostgreSQL, seeded with full pages of everything, under 20 clients
 * sending the largest operations the bounds allow (GraphQL and REST, round robin, five tokens)
 * for BOUNDED_LOAD_SECONDS (default 45, at most 60) while a webshop polls. Asserts the process
 * stays alive, the poll's p99 stays ≤ 1 s and the peak RSS stays under the container size
 * docs/operations.md gives (embedded 512 MB, PostgreSQL 384 MB). `npx tsx bench/bounded-load.ts`
 * alone, or `BENCH_ONLY=bounded-load npm run bench`.
 */
import { execSync } from 'node:child_process';
import { infoResult, limitResult, log, percentile, type Result } from './lib/measure';
import { api, freshDatabase, runCliCommand, startService, type Service } from './lib/service';

const SECONDS = Math.min(60, Number(process.env.BOUNDED_LOAD_SECONDS ?? 45));
const CLIENTS = Number(process.env.BOUNDED_LOAD_CLIENTS ?? 20);
/** For a closer look: only the operations whose name matches, only one backend. */
const ONLY = process.env.BOUNDED_LOAD_ONLY ? new RegExp(process.env.BOUNDED_LOAD_ONLY) : undefined;
const BACKENDS = process.env.BOUNDED_LOAD_BACKENDS?.split(',') ?? ['embedded', 'PostgreSQL'];
const TOKENS = 5;
const MB = 1024 * 1024;
const CONTAINER_MB = { embedded: 512, PostgreSQL: 384 } as const;

type Operation = { name: string; method: 'GET' | 'POST'; path: string; body?: unknown };

const aliases = (n: number, field: (i: number) => string) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field(i)}`).join(' ')} }`;
const gql = (name: string, query: string): Operation => ({ name: `graphql ${name}`, method: 'POST', path: '/graphql', body: { query } });
const rest = (path: string): Operation => ({ name: `GET ${path.split('?')[0]}`, method: 'GET', path });

/** Each as large as MAX_QUERY_NODES (50,000) and the alias limit (15) allow; the node counts are in the names. */
const ALL_OPERATIONS: Operation[] = [
  gql(
    '15 × products(500) data: 7,500',
    aliases(15, (i) => `products(limit: 500, offset: ${i * 100}) { payload { id externalId data } }`),
  ),
  gql(
    '2 × products(500) prices, stock: 41,000',
    aliases(
      2,
      () =>
        'products(limit: 500) { payload { id data priceItems { id price pricelistExternalId } stock { quantity supplierExternalId } } }',
    ),
  ),
  gql(
    'products(100) history(23): 48,400',
    '{ products(limit: 100) { payload { externalId history(limit: 23) { revision changedAt changes { field old new } } } } }',
  ),
  gql(
    '4 × partners(500) children: 42,000',
    aliases(4, () => 'partners(limit: 500) { payload { id data children { id externalId data } } }'),
  ),
  gql(
    '9 × failures(500) details: 49,500',
    aliases(9, () => 'failures(limit: 500) { payload { id error_message error_details { field message } } }'),
  ),
  gql(
    '9 × outboundQueue(500) attempts: 49,500',
    aliases(9, () => 'outboundQueue(limit: 500) { payload { id payload attemptLog { attempt outcome error responseBody } } }'),
  ),
  gql(
    '15 × deliveriesPerMinute(1440): 21,600',
    aliases(15, () => 'deliveriesPerMinute(minutes: 1440) { minute delivered failed }'),
  ),
  rest('/api/v1/updated-products?limit=500'),
  rest('/api/v1/pricelists/updated?limit=500'),
  rest('/api/v1/pricelists/retail/items?limit=500'),
  rest('/api/v1/updated-partners?limit=500'),
  rest('/api/v1/stocks/changed?limit=500'),
  rest('/api/v1/stocks/by-supplier/SUP-1?limit=500'),
  rest('/api/v1/failures?limit=500'),
  rest('/api/v1/outbound-queue?limit=500'),
  rest('/api/v1/history/product/SKU-1?limit=100'),
];

const OPERATIONS = ALL_OPERATIONS.filter((op) => !ONLY || ONLY.test(op.name));

/** Full pages of everything: 2,000 products of ~1 KB (3 prices, stock, 2 revisions), 600 partners, 600 failures with deliveries. */
async function seed(service: Service): Promise<void> {
  const products = Array.from({ length: 2_000 }, (_, i) => ({
    external_id: `SKU-${i}`,
    name: `Product ${i}`,
    description: `A product as an ERP describes it. ${'Lorem ipsum dolor sit amet. '.repeat(30)}`,
    price: i % 100,
    pricelists: ['retail', 'wholesale', 'web'].map((p) => ({ pricelist_external_id: p, pricelist_name: p, price: i % 50 })),
  }));
  await api(service, 'POST', '/api/v1/products', { products });
  await api(service, 'POST', '/api/v1/products', { products: products.map((p) => ({ ...p, name: `${p.name}, renamed` })) });
  const stocks = products.map((p) => ({ supplier_external_id: 'SUP-1', product_external_id: p.external_id, quantity: 7 }));
  await api(service, 'POST', '/api/v1/stocks', { stocks });
  const partners = Array.from({ length: 600 }, (_, i) => ({
    external_id: `P-${i}`,
    name: `Partner ${i}`,
    ...(i % 30 === 0 ? {} : { parent_external_id: `P-${i - (i % 30)}` }),
  }));
  await api(service, 'POST', '/api/v1/partners', { partners });
  // Failures of the ERP are delivered to the webshop: a receiver that refuses leaves attempts in the log.
  await runCliCommand(
    ['webhook', 'add', '--url', 'http://127.0.0.1:9/', '--entity-type', 'product', '--direction', 'to_webshop'],
    service.env,
  );
  for (let i = 0; i < 600; i++) {
    const details = Array.from({ length: 5 }, (_, j) => ({ field: `field_${j}`, message: 'Must be a valid value for the webshop' }));
    await api(service, 'POST', '/api/v1/failures', {
      entity_type: 'product',
      external_id: `SKU-${i}`,
      source: 'erp',
      error_message: 'Rejected by the webshop',
      error_details: details,
    });
  }
}

type Tally = { statuses: Map<number, number>; maxAnswerBytes: number; polls: number[] };

async function load(service: Service, tokens: string[], tally: Tally): Promise<void> {
  const deadline = Date.now() + SECONDS * 1000;
  let next = 0;
  const client = async (index: number) => {
    while (Date.now() < deadline) {
      const op = OPERATIONS[next++ % OPERATIONS.length]!;
      const res = await fetch(`${service.url}${op.path}`, {
        method: op.method,
        headers: { authorization: `Bearer ${tokens[index % tokens.length]}`, 'content-type': 'application/json' },
        ...(op.body === undefined ? {} : { body: JSON.stringify(op.body) }),
      }).catch(() => undefined);
      const text = res ? await res.text() : '';
      const status = res?.status ?? 0; // 0: no answer (connection refused or reset)
      tally.statuses.set(status, (tally.statuses.get(status) ?? 0) + 1);
      tally.maxAnswerBytes = Math.max(tally.maxAnswerBytes, Buffer.byteLength(text));
      if (status === 429 || status === 503) await sleep(Number(res?.headers.get('retry-after') ?? 1) * 1000);
      if (status === 0) return;
    }
  };
  const poll = async () => {
    while (Date.now() < deadline) {
      const started = performance.now();
      const res = await fetch(`${service.url}/api/v1/updated-products?limit=50`, {
        headers: { authorization: `Bearer ${service.token}` },
      }).catch(() => undefined);
      await res?.text();
      tally.polls.push(res?.ok ? performance.now() - started : Infinity);
      await sleep(100);
    }
  };
  await Promise.all([...Array.from({ length: CLIENTS }, (_, i) => client(i)), poll()]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** As lib/service's peakRss, but a process that died under the load is a result, not a crash of the bench. */
async function peakRssWhile(service: Service, work: () => Promise<void>): Promise<{ peakBytes: number }> {
  const rss = () => {
    try {
      return service.rss();
    } catch {
      return 0;
    }
  };
  let peakBytes = rss();
  const timer = setInterval(() => (peakBytes = Math.max(peakBytes, rss())), 50);
  try {
    await work();
    return { peakBytes: Math.max(peakBytes, rss()) };
  } finally {
    clearInterval(timer);
  }
}

async function alive(service: Service): Promise<boolean> {
  const res = await fetch(`${service.url}/health`).catch(() => undefined);
  return res?.ok === true;
}

/** One backend: seeds, checks every operation is allowed, runs the load, and reports. */
async function runOn(backend: keyof typeof CONTAINER_MB, service: Service): Promise<Result[]> {
  const scenario = `bounded-load (${backend})`;
  log(`${scenario}: seeding`);
  await seed(service);
  const tokens = await Promise.all(
    Array.from({ length: TOKENS }, async (_, i) =>
      (await runCliCommand(['token', 'create', '--name', `bounded-${i}`], service.env)).trim().split('\n').pop()!,
    ),
  );
  for (const op of OPERATIONS) {
    const res = await fetch(`${service.url}${op.path}`, {
      method: op.method,
      headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
      ...(op.body === undefined ? {} : { body: JSON.stringify(op.body) }),
    });
    const text = await res.text();
    if (res.status !== 200 || text.includes('"errors"')) throw new Error(`${op.name}: ${res.status} ${text.slice(0, 300)}`);
    log(`${scenario}: ${op.name} alone: ${(Buffer.byteLength(text) / MB).toFixed(2)} MB`);
  }
  log(`${scenario}: ${CLIENTS} clients for ${SECONDS} s`);
  const tally: Tally = { statuses: new Map(), maxAnswerBytes: 0, polls: [] };
  const before = service.rss();
  const { peakBytes } = await peakRssWhile(service, () => load(service, tokens, tally));
  const up = await alive(service);
  const polls = [...tally.polls].sort((a, b) => a - b);
  const count = (pred: (s: number) => boolean) => [...tally.statuses].filter(([s]) => pred(s)).reduce((n, [, c]) => n + c, 0);
  log(
    `${scenario}: statuses ${JSON.stringify(Object.fromEntries(tally.statuses))}; slowest polls ${polls
      .slice(-5)
      .map((p) => p.toFixed(0))
      .join(', ')} ms`,
  );
  return [
    limitResult(scenario, 'process died (1) or answered /health after the load (0)', up ? 0 : 1, 0),
    limitResult(scenario, 'poll p99 ms', percentile(polls, 99), 1000),
    limitResult(scenario, `peak RSS MB (container ${CONTAINER_MB[backend]} MB)`, peakBytes / MB, CONTAINER_MB[backend]),
    limitResult(
      scenario,
      'answers 5xx other than 503, or none',
      count((s) => s === 0 || (s >= 500 && s !== 503)),
      0,
    ),
    infoResult(scenario, 'RSS MB before the load', before / MB),
    infoResult(scenario, 'poll p50 ms', percentile(polls, 50)),
    infoResult(scenario, 'polls', polls.length),
    infoResult(
      scenario,
      'operations answered 200',
      count((s) => s === 200),
    ),
    infoResult(
      scenario,
      'refused 429 (per token) / 503 (replica busy)',
      count((s) => s === 429 || s === 503),
    ),
    infoResult(
      scenario,
      'failed 422 (answer too large)',
      count((s) => s === 422),
    ),
    infoResult(scenario, 'largest answer MB', tally.maxAnswerBytes / MB),
  ];
}

export async function runBoundedLoad(): Promise<Result[]> {
  const results: Result[] = [];
  if (BACKENDS.includes('embedded')) {
    const embedded = await startService({ backend: 'embedded' });
    try {
      results.push(...(await runOn('embedded', embedded)));
    } finally {
      await embedded.stop();
    }
  }
  if (!BACKENDS.includes('PostgreSQL')) return results;
  const db = await freshDatabase();
  const postgres = await startService({ backend: 'postgresql', databaseUrl: db.url });
  try {
    results.push(...(await runOn('PostgreSQL', postgres)));
  } finally {
    await postgres.stop();
    await db.drop();
  }
  return results;
}

if (require.main === module) {
  execSync('npm run -s build', { stdio: 'inherit' });
  runBoundedLoad()
    .then((results) => {
      console.table(results);
      if (results.some((r) => r.pass === false)) process.exitCode = 1;
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
