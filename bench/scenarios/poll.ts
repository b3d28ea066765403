/**
 * poll and poll-graphql: a webshop polling `GET /api/v1/updated-products?limit=50` (and the same
 * page through /graphql) from 64 connections, against a minimal node:http + pg server doing the
 * same work: the page, the total, and remembering the listed revisions so that acks stay safe.
 */
import { httpLoad, log, median, ratioResult, limitResult, ROUNDS, type HttpLoad, type Result } from '../lib/measure';
import { api, startBaselineProcess, type Service } from '../lib/service';

export const POLL_CONNECTIONS = 64;
export const POLL_PRODUCTS = 10_000;
const DURATION_S = Number(process.env.BENCH_POLL_SECONDS ?? 20);
const PAGE = 50;

/** The same page as the REST poll, as a GraphQL request body. */
export const GRAPHQL_PAGE = JSON.stringify({
  query: `{ updatedProducts(limit: ${PAGE}) { payload { id externalId erpId isNew changedFields context data updatedAt } meta { total limit offset } } }`,
});

export async function seedPendingProducts(service: Service, count: number): Promise<void> {
  for (let i = 0; i < count; i += 5000) {
    const products = Array.from({ length: Math.min(5000, count - i) }, (_, j) => ({
      external_id: `POLL-${i + j}`,
      erp_id: i + j,
      name: `Product ${i + j}`,
      description: 'A product as an ERP would describe it, with a few words of text.',
      price: ((i + j) % 1000) / 10,
    }));
    await api(service, 'POST', '/api/v1/products', { products });
  }
}

export const pollRest = (service: Service, durationS = DURATION_S, allowTimeouts = false) =>
  httpLoad({
    url: `${service.url}/api/v1/updated-products?limit=${PAGE}`,
    connections: POLL_CONNECTIONS,
    durationS,
    headers: { authorization: `Bearer ${service.token}` },
    allowTimeouts,
  });

export const pollGraphql = (service: Service, durationS = DURATION_S) =>
  httpLoad({
    url: `${service.url}/graphql`,
    method: 'POST',
    connections: POLL_CONNECTIONS,
    durationS,
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
    body: GRAPHQL_PAGE,
  });

/** Rounds alternate service, GraphQL and raw so that drift on the machine hits all three alike. */
export async function runPoll(service: Service, databaseUrl: string): Promise<{ results: Result[]; rounds: unknown[] }> {
  const raw = await startBaselineProcess('raw-poll-server.ts', databaseUrl);
  const rounds: Array<{ rest: HttpLoad; graphql: HttpLoad; raw: HttpLoad }> = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const rest = await pollRest(service);
      const graphql = await pollGraphql(service);
      const baseline = await httpLoad({ url: `${raw.url}/`, connections: POLL_CONNECTIONS, durationS: DURATION_S });
      log(
        `poll round ${round}: REST ${rest.reqPerSec.toFixed(0)} req/s (p99 ${rest.p99Ms} ms), GraphQL ${graphql.reqPerSec.toFixed(0)}, raw ${baseline.reqPerSec.toFixed(0)} (p99 ${baseline.p99Ms} ms)`,
      );
      rounds.push({ rest, graphql, raw: baseline });
    }
  } finally {
    await raw.close();
  }
  const rawRps = median(rounds.map((r) => r.raw.reqPerSec));
  return {
    rounds,
    results: [
      ratioResult('poll', 'req/s', median(rounds.map((r) => r.rest.reqPerSec)), rawRps, 0.5, 'raw node:http + pg'),
      limitResult('poll', 'p99 ms', median(rounds.map((r) => r.rest.p99Ms)), 25, median(rounds.map((r) => r.raw.p99Ms))),
      ratioResult('poll-graphql', 'req/s', median(rounds.map((r) => r.graphql.reqPerSec)), rawRps, 0.5, 'raw node:http + pg'),
    ],
  };
}
