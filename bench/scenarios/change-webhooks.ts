/**
 * Change webhooks (issue 32, ADR 0047): changes delivered per second by push against changes
 * taken per second by a client polling the same way, same service, same run, alternating rounds.
 * Each round starts a fresh channel `--from all` over BENCH_CHANGE_RECORDS products, so both modes
 * hand out the same records in batches of BENCH_CHANGE_BATCH:
 * - push: the service's worker POSTs batches to a loopback receiver (204), each acknowledged by its
 *   2xx; timed from the channel's creation to the last record received;
 * - poll: one client loop, GET the change list (limit = batch) and acknowledge it by revision,
 *   until nothing is pending; timed the same way.
 * In `npm run bench` as `change-webhooks`, on the embedded store and on a fresh database of
 * BENCH_DATABASE_URL. No target: issue 32 asks for the two rates side by side.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { infoResult, log, median, ROUNDS, type Result } from '../lib/measure';
import { api, freshDatabase, runCliCommand, startService, type Service } from '../lib/service';

const RECORDS = Number(process.env.BENCH_CHANGE_RECORDS ?? 20_000);
const BATCH = Number(process.env.BENCH_CHANGE_BATCH ?? 100);

type Round = { push: number; poll: number };

/** Both rates on one provider, ROUNDS rounds alternating; the rows for bench/RESULTS.md. */
export async function runChangeWebhooks(provider: 'embedded' | 'postgresql'): Promise<{ results: Result[]; rounds: unknown[] }> {
  const onPostgres = provider === 'postgresql';
  const database = onPostgres ? await freshDatabase() : undefined;
  const service = await startService(database ? { backend: 'postgresql', databaseUrl: database.url } : { backend: 'embedded' });
  let received = 0;
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      received += (JSON.parse(body) as { records: unknown[] }).records.length;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/changes`;
  try {
    const admin = { url: service.url, token: await newToken(service, ['--name', 'bench-admin', '--role', 'admin']) };
    for (let i = 0; i < RECORDS; i += 1_000) {
      const products = Array.from({ length: Math.min(1_000, RECORDS - i) }, (_, k) => ({
        external_id: `CW-${i + k}`,
        name: `p${i + k}`,
        price: k,
      }));
      await api(service, 'POST', '/api/v1/products', { products });
    }
    const rounds: Round[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      received = 0;
      const pushed = await timed(async () => {
        await graphql(
          admin,
          `mutation { createChannel(name: "push-${r}", from: all, pushUrl: "${receiverUrl}", batchSize: ${BATCH}) { name } }`,
        );
        while (received < RECORDS) await new Promise((resolve) => setTimeout(resolve, 5));
      });
      await graphql(admin, `mutation { deleteChannel(name: "push-${r}") { name } }`);

      await graphql(admin, `mutation { createChannel(name: "poll-${r}", from: all) { name } }`);
      const shop = {
        url: service.url,
        token: await newToken(service, ['--name', `bench-shop-${r}`, '--role', 'webshop', '--channel', `poll-${r}`]),
      };
      const polled = await timed(async () => {
        let taken = 0;
        for (;;) {
          const page = await api<{ payload: Array<{ id: number; revision: number }> }>(
            shop,
            'GET',
            `/api/v1/updated-products?limit=${BATCH}`,
          );
          if (page.payload.length === 0) break;
          await api(shop, 'POST', '/api/v1/updated-products/batch-delete', {
            items: page.payload.map((p) => ({ id: p.id, revision: p.revision })),
          });
          taken += page.payload.length;
        }
        if (taken !== RECORDS) throw new Error(`polled ${taken} records, expected ${RECORDS}`);
      });
      await graphql(admin, `mutation { deleteChannel(name: "poll-${r}") { name } }`);
      const round = { push: RECORDS / pushed, poll: RECORDS / polled };
      log(`change-webhooks (${provider}) round ${r}: push ${round.push.toFixed(0)} records/s, poll ${round.poll.toFixed(0)} records/s`);
      rounds.push(round);
    }
    const push = median(rounds.map((r) => r.push));
    const poll = median(rounds.map((r) => r.poll));
    const scenario = `change-webhooks (${onPostgres ? 'PostgreSQL' : 'embedded'})`;
    const ratio = median(rounds.map((r) => r.push / r.poll));
    return {
      rounds,
      results: [
        {
          scenario,
          metric: `changes delivered/s by push (batches of ${BATCH}, ${RECORDS.toLocaleString('en')} records) against taken/s by a polling client`,
          value: Math.round(push),
          baseline: Math.round(poll),
          ratio: Number(ratio.toFixed(3)),
          target: null,
          pass: null,
        },
        infoResult(scenario, 'push records/s', push),
        infoResult(scenario, 'poll records/s (list + ack by revision, one client)', poll),
      ],
    };
  } finally {
    receiver.close();
    await service.stop();
    await database?.drop();
  }
}

async function newToken(service: Service, args: string[]): Promise<string> {
  return (await runCliCommand(['token', 'create', ...args], service.env, service.root)).trim().split('\n').pop()!;
}

async function graphql(caller: { url: string; token: string }, query: string): Promise<unknown> {
  const res = await api<{ errors?: Array<{ message: string }> }>(caller, 'POST', '/graphql', { query });
  if (res.errors?.length) throw new Error(res.errors.map((e) => e.message).join('; '));
  return res;
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}
