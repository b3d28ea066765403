/**
 * poll-peers (issues 18, 33): the webshop's poll (`GET /api/v1/updated-products?limit=50`, 10,000
 * pending products) against what an integrator would otherwise deploy: the fair peer, PostGraphile
 * calling a function that runs the service's own statement (same counters, listing mark, SKIP
 * LOCKED); PostGraphile over a plain view (not as safe); the same function with count(*) as an
 * integrator would first write it (unequal cost); and the raw node:http + pg baseline. Service REST and GraphQL too, at 16 and 64
 * connections, rounds interleaved (the order rotates each round), medians; p99 and the CPU each
 * server process spent per request (PostgreSQL's own CPU is not in it).
 */
import { costResult, cpuMsPerRequest } from '../lib/cpu';
import { httpLoad, infoResult, limitResult, log, median, ROUNDS, roundRatioResult, type HttpLoad, type Result } from '../lib/measure';
import { startBaselineProcess, type Service } from '../lib/service';
import { POLL_PRODUCTS } from './poll';

const DURATION_S = Number(process.env.BENCH_PEERS_SECONDS ?? 10);
const CONNECTIONS = [16, 64] as const;
const PAGE = 50;
const FIELDS = 'id externalId erpId isNew changedFields context data updatedAt';

type Request = { url: string; method: 'GET' | 'POST'; headers: Record<string, string>; body?: string };
type Target = {
  name: 'rest' | 'graphql' | 'view' | 'function' | 'same' | 'raw';
  label: string;
  pid: number;
  request: Request;
  /** Rows and total of one answer, to check that the target serves the page before it is loaded. */
  page(body: unknown): { rows: number; total: number };
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers of five servers, checked by shape

function graphqlRequest(url: string, query: string, headers: Record<string, string> = {}): Request {
  return { url, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) };
}

function targets(service: Service, peer: { url: string; pid: number }, raw: { url: string; pid: number }): Target[] {
  const auth = { authorization: `Bearer ${service.token}` };
  return [
    {
      name: 'rest',
      label: 'service REST',
      pid: service.pid,
      request: { url: `${service.url}/api/v1/updated-products?limit=${PAGE}`, method: 'GET', headers: auth },
      page: (b: Json) => ({ rows: b.payload.length, total: b.meta.total }),
    },
    {
      name: 'graphql',
      label: 'service GraphQL',
      pid: service.pid,
      request: graphqlRequest(
        `${service.url}/graphql`,
        `{ updatedProducts(limit: ${PAGE}) { payload { ${FIELDS} } meta { total limit offset } } }`,
        auth,
      ),
      page: (b: Json) => ({ rows: b.data.updatedProducts.payload.length, total: b.data.updatedProducts.meta.total }),
    },
    {
      name: 'view',
      label: 'PostGraphile over a plain view',
      pid: peer.pid,
      request: graphqlRequest(
        `${peer.url}/graphql`,
        `{ allPendingProducts(first: ${PAGE}, orderBy: [UPDATED_AT_ASC, ID_ASC]) { totalCount nodes { ${FIELDS} } } }`,
      ),
      page: (b: Json) => ({ rows: b.data.allPendingProducts.nodes.length, total: b.data.allPendingProducts.totalCount }),
    },
    {
      name: 'same',
      label: "PostGraphile function running the service's statement (the fair peer)",
      pid: peer.pid,
      request: graphqlRequest(
        `${peer.url}/graphql`,
        `mutation { listPendingProductsCounted(input: { reader: "token:postgraphile-same", pageSize: ${PAGE} }) { listedProducts { total ${FIELDS} } } }`,
      ),
      page: (b: Json) => ({
        rows: b.data.listPendingProductsCounted.listedProducts.length,
        total: b.data.listPendingProductsCounted.listedProducts[0].total,
      }),
    },
    {
      name: 'function',
      label: 'PostGraphile as an integrator would first write it (count(*) each poll)',
      pid: peer.pid,
      request: graphqlRequest(
        `${peer.url}/graphql`,
        `mutation { listPendingProducts(input: { reader: "token:postgraphile", pageSize: ${PAGE} }) { listedProducts { total ${FIELDS} } } }`,
      ),
      page: (b: Json) => ({
        rows: b.data.listPendingProducts.listedProducts.length,
        total: b.data.listPendingProducts.listedProducts[0].total,
      }),
    },
    {
      name: 'raw',
      label: 'raw node:http + pg',
      pid: raw.pid,
      request: { url: `${raw.url}/`, method: 'GET', headers: {} },
      page: (b: Json) => ({ rows: b.payload.length, total: b.meta.total }),
    },
  ];
}

/** One answer, checked: a GraphQL error is a 200 too, and autocannon would count it as served. */
async function checkTarget(target: Target): Promise<void> {
  const { url, ...init } = target.request;
  const res = await fetch(url, init);
  const body = (await res.json()) as Json;
  if (!res.ok || body.errors) throw new Error(`${target.label} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  const { rows, total } = target.page(body);
  if (rows !== PAGE || total !== POLL_PRODUCTS) throw new Error(`${target.label} served ${rows} rows of ${total}`);
}

const load = (target: Target, connections: number, durationS: number) =>
  cpuMsPerRequest(target.pid, () => httpLoad({ ...target.request, connections, durationS }));

type Measured = HttpLoad & { cpuMs: number };

export async function runPollPeers(service: Service, databaseUrl: string): Promise<{ results: Result[]; rounds: unknown[] }> {
  const [peer, raw] = await Promise.all([
    startBaselineProcess('postgraphile-server.ts', databaseUrl),
    startBaselineProcess('raw-poll-server.ts', databaseUrl),
  ]);
  const all = targets(service, peer, raw);
  const rounds: Array<Record<string, Record<string, Measured>>> = [];
  try {
    for (const target of all) await checkTarget(target);
    for (const target of all) await load(target, CONNECTIONS[0], 2); // warm-up: JIT, caches, pools
    for (let round = 0; round < ROUNDS; round++) {
      const order = [...all.slice(round % all.length), ...all.slice(0, round % all.length)];
      const measured: Record<string, Record<string, Measured>> = {};
      for (const connections of CONNECTIONS) {
        const at: Record<string, Measured> = {};
        for (const target of order) at[target.name] = await load(target, connections, DURATION_S);
        measured[connections] = at;
        log(
          `poll-peers round ${round + 1}, ${connections} connections: ` +
            all.map((t) => `${t.name} ${at[t.name]!.reqPerSec.toFixed(0)} req/s (p99 ${at[t.name]!.p99Ms} ms)`).join(', '),
        );
      }
      rounds.push(measured);
    }
  } finally {
    await Promise.all([peer.close(), raw.close()]);
  }
  return { rounds, results: summarize(all, rounds) };
}

function summarize(all: Target[], rounds: Array<Record<string, Record<string, Measured>>>): Result[] {
  const results: Result[] = [];
  for (const connections of CONNECTIONS) {
    const med = (name: string, pick: (m: Measured) => number) => median(rounds.map((r) => pick(r[connections]![name]!)));
    const rps = (name: string) => med(name, (m) => m.reqPerSec);
    const p99 = (name: string) => med(name, (m) => m.p99Ms);
    const at = `${connections} connections`;
    for (const [name, api] of [
      ['rest', 'REST'],
      ['graphql', 'GraphQL'],
    ] as const) {
      // The headline (issue 33): against the peer that runs the same statement, at both loads.
      const perRound = rounds.map((r) => ({ value: r[connections]![name]!.reqPerSec, baseline: r[connections]!.same!.reqPerSec }));
      results.push(
        roundRatioResult('poll-peers', `${api} req/s, ${at}`, perRound, 1.5, "PostGraphile running the service's statement"),
        limitResult('poll-peers', `${api} p99 ms, ${at} (baseline: the fair peer's p99)`, p99(name), p99('same'), p99('same')),
        infoResult('poll-peers', `${api} req/s ÷ PostGraphile over a plain view (not as safe), ${at}`, rps(name) / rps('view')),
        infoResult('poll-peers', `${api} req/s ÷ the count(*) function (unequal cost), ${at}`, rps(name) / rps('function')),
      );
    }
    for (const target of all.filter((t) => t.name !== 'rest' && t.name !== 'graphql')) {
      results.push(
        infoResult('poll-peers', `${target.label} req/s, ${at}`, rps(target.name)),
        infoResult('poll-peers', `${target.label} p99 ms, ${at}`, p99(target.name)),
      );
    }
    results.push(
      roundRatioResult(
        'poll-peers',
        `GraphQL req/s against REST, ${at}`,
        rounds.map((r) => ({ value: r[connections]!.graphql!.reqPerSec, baseline: r[connections]!.rest!.reqPerSec })),
        0.95,
        'REST',
      ),
    );
    const cpu = (name: string) => med(name, (m) => m.cpuMs);
    for (const name of ['rest', 'graphql'] as const) {
      const api = name === 'rest' ? 'REST' : 'GraphQL';
      results.push(
        costResult('poll-peers', `${api} CPU ms per poll (server process), ${at}`, cpu(name), cpu('raw'), 1.5, 'raw node:http + pg'),
      );
    }
    for (const target of all.filter((t) => t.name !== 'rest' && t.name !== 'graphql')) {
      results.push(infoResult('poll-peers', `${target.label} CPU ms per poll (server process), ${at}`, cpu(target.name)));
    }
  }
  return results;
}
