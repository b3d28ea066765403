import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createToken } from '../../src/auth/token.service';
import { openStore } from '../../src/db/store';
import { setWebhookNetworks } from '../../src/deliveries/network-policy';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { createSecretBox } from '../../src/deliveries/secret-box';
import { LOOPBACK_RECEIVERS } from '../support/http';
import { embeddedEnv, serveProcess, type ServeProcess } from '../support/process';
import { startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait-for';

/**
 * Enough to be a store with data in it. The volume (100,000 records) and the target (ready ≤ 3 s
 * after kill -9) are the benchmark's, on the built server (bench/scenarios/crash-restart.ts,
 * bench/RESULTS.md). What this test holds is the behaviour: the dead holder's lock taken over,
 * its orphaned postmaster used, nothing lost, the in-flight delivery sent again.
 */
const RECORDS = 1_000;
/** A ceiling against hangs, not a target: the server runs beside other suites on two cores. */
const READY_WITHIN_MS = 60_000;

/** The race suite's crash case: the embedded store after `kill -9`, under a busy machine. */
describe('race: kill -9 then ready (embedded store)', () => {
  const key = randomBytes(32);
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let token: string;
  const servers: ServeProcess[] = [];
  // It holds the first delivery open: the process dies with that item `processing`.
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver((_req, index) => (index === 0 ? new Promise(() => undefined) : { status: 200 }));
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-crash-'));
    env = embeddedEnv(dataDir, {
      ENCRYPTION_KEY: key.toString('hex'),
      // The receiver is on loopback, which the SSRF guard refuses unless allowed.
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
    });
    setWebhookNetworks(LOOPBACK_RECEIVERS);
    const db = await openStore({ dataDir, logger: pino({ level: 'silent' }) });
    try {
      await db.migrate();
      // One set-based statement, not an API call a record.
      await db.prisma.$executeRawUnsafe(
        `INSERT INTO products (external_id, data, field_revisions, changed_fields)
         SELECT 'SEED-' || n, jsonb_build_object('name', 'Product ' || n, 'price', n % 1000), '{"name":1,"price":1}', ARRAY['name','price']
           FROM generate_series(1, ${RECORDS}) AS n`,
      );
      token = (await createToken(db.prisma, 'crash-test')).token;
      await createWebhook(db.prisma, createSecretBox(key), {
        url: receiver.url,
        entityType: 'product',
        direction: 'to_webshop',
        secret: 'crash-test-secret-1234',
      });
    } finally {
      await db.close();
    }
  }, 300_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const api = (url: string, method: string, route: string, body?: unknown) =>
    fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('takes the lock of the dead process at once, recovers, answers /ready, and redelivers its in-flight webhook', async () => {
    const first = await serveProcess(env);
    servers.push(first);
    const written = await api(first.url, 'POST', '/api/v1/products', {
      products: [{ external_id: 'LAST-WORD', name: 'written just before the crash' }],
    });
    expect(written.status).toBe(200);
    expect(
      (
        await api(first.url, 'POST', '/api/v1/failures', {
          entity_type: 'product',
          external_id: 'K-1',
          source: 'erp',
          error_message: 'boom',
        })
      ).status,
    ).toBeLessThan(300);
    await waitFor(() => receiver.requests.length === 1, 60_000);

    await first.stop('SIGKILL');

    const second = await serveProcess(env);
    servers.push(second);
    await waitFor(async () => (await fetch(`${second.url}/ready`)).status === 200, READY_WITHIN_MS, 'GET /ready 200');
    expect(second.output()).toContain('taking it over');
    // The dead process's postmaster outlived it, with this build's binary and settings: used as it is.
    expect(second.output()).toContain("an embedded PostgreSQL left running by a stopped process, with this build's settings: using it");

    // The write acknowledged before the crash is there, and so are the seeded records.
    const page = await (await api(second.url, 'GET', '/api/v1/updated-products?limit=1')).json();
    expect(page).toMatchObject({ meta: { total: RECORDS + 1 } });
    // The delivery the dead process had in flight goes out again once its lease (WORKER_LEASE_MS) ends.
    await waitFor(() => receiver.requests.length === 2, 60_000, 'the in-flight delivery sent again');
    expect(receiver.requests[1]!.headers['webhook-id']).toBe(receiver.requests[0]!.headers['webhook-id']);
  }, 300_000);
});
