import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createPostgresDatabase } from '../support/database';
import { embeddedEnv, postgresEnv, runCli, serveProcess, webhookAddArgs, type ServeProcess } from '../support/process';
import { Webhook } from 'standardwebhooks';
import { startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait-for';

/**
 * Each CLI run starts a process (and, with no server running, opens the store); with the other
 * suites running beside it on two cores that takes a while. A ceiling against hangs, not a target.
 */
const CLI_TEST_TIMEOUT_MS = 600_000;

describe('sync-gateway CLI and server process (embedded PostgreSQL)', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-cli-'));
    env = embeddedEnv(dataDir, { WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' });
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const run = (...args: string[]) => runCli(env, args);

  it(
    'creates tokens with no server running, serves with them, answers while serving, and keeps data across restarts',
    async () => {
      const created = await run('token', 'create', '--name', 'erp');
      expect(created.code).toBe(0);
      const lines = created.stdout.trim().split('\n');
      const token = lines[lines.length - 1]!;
      expect(token).toMatch(/^sgw_[A-Za-z0-9_-]{43}$/);

      const admin = await run('token', 'create', '--name', 'ops', '--role', 'admin');
      expect(admin.stdout).toMatch(/role admin/);
      const shop = await run('token', 'create', '--name', 'shop', '--role', 'webshop');
      expect(shop.stdout).toMatch(/role webshop/);
      const badRole = await run('token', 'create', '--name', 'x', '--role', 'root');
      expect(badRole.code).not.toBe(0);
      expect(badRole.stderr).toMatch(/erp, webshop, viewer, integration, admin/);

      const listed = await run('token', 'list');
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/erp/);
      expect(listed.stdout).toMatch(/ops/);
      expect(listed.stdout).not.toContain(token);

      const server = await serveProcess(env);
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      const pushed = await fetch(`${server.url}/api/v1/products`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ external_id: 'CLI-1', name: 'kept' }),
      });
      expect(await pushed.json()).toMatchObject({ created: 1 });

      // The running server holds the store; the CLI connects to its cluster through the socket in DATA_DIR.
      const whileServing = await run('token', 'list');
      expect(whileServing).toMatchObject({ code: 0, stderr: '' });
      expect(whileServing.stdout).toMatch(/erp/);

      await server.stop();
      expect(server.child.exitCode).toBe(0);
      expect(server.output()).toMatch(/"msg":"stopped"/);

      const restarted = await serveProcess(env);
      try {
        const list = await (await fetch(`${restarted.url}/api/v1/updated-products`, { headers: auth })).json();
        expect(list.payload).toEqual([expect.objectContaining({ externalId: 'CLI-1', data: { name: 'kept' } })]);
      } finally {
        await restarted.stop();
      }
      expect(restarted.child.exitCode).toBe(0);

      const revoked = await run('token', 'revoke', 'erp');
      expect(revoked.code).toBe(0);
      const afterRevoke = await run('token', 'list');
      expect(afterRevoke.stdout).toMatch(/erp.*\d{4}-\d\d-\d\dT/);
      const unknown = await run('token', 'revoke', 'nobody');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/No token/);

      const migrate = await run('migrate');
      expect(migrate.code).toBe(0);
      expect(migrate.stdout).toMatch(/up to date/);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  describe('webhook commands, answered by the running server', () => {
    let server: ServeProcess;
    beforeAll(async () => {
      server = await serveProcess(env);
    }, CLI_TEST_TIMEOUT_MS);
    afterAll(() => server.stop());

    it(
      'manages webhook configurations with secrets encrypted under a key generated into DATA_DIR',
      async () => {
        const added = await run(...webhookAddArgs('http://127.0.0.1:9/hook', 'product', 'to_erp', 'cli-secret-0123456789'));
        expect(added.code).toBe(0);
        const id = /added webhook (\d+)/.exec(added.stdout)?.[1];
        expect(id).toBeDefined();
        const keyFile = path.join(dataDir, 'encryption.key');
        expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
        expect((await readFile(keyFile, 'utf8')).trim()).toMatch(/^[0-9a-f]{64}$/);

        const listed = await run('webhook', 'list');
        expect(listed.stdout).toMatch(/http:\/\/127\.0\.0\.1:9\/hook/);
        expect(listed.stdout).not.toContain('cli-secret-0123456789');

        const bad = await run(...webhookAddArgs('ftp://x', 'invoice', 'to_erp', 'short'));
        expect(bad.code).toBe(1);
        expect(bad.stderr).toMatch(/--url: /);
        expect(bad.stderr).toMatch(/--entity-type: /);
        expect(bad.stderr).toMatch(/--secret: /);

        expect((await run('webhook', 'disable', id!)).stdout).toMatch(/disabled webhook/);
        expect((await run('webhook', 'list')).stdout).toMatch(/false/);
        expect((await run('webhook', 'remove', id!)).stdout).toMatch(/removed webhook/);
        expect((await run('webhook', 'remove', 'abc')).stderr).toMatch(/must be a number/);
      },
      CLI_TEST_TIMEOUT_MS,
    );

    it(
      'generates a whsec_ secret when none is given, rotates it with a grace period, sends a test event, refuses loopback unless allowed',
      async () => {
        const receiver = await startReceiver();
        try {
          const added = await run('webhook', 'add', '--url', receiver.url, '--entity-type', 'partner', '--direction', 'to_erp');
          expect(added.code).toBe(0);
          const secret = added.stdout.trim().split('\n').pop()!;
          expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
          const id = /added webhook (\d+)/.exec(added.stdout)![1]!;

          const rotated = await run('webhook', 'rotate-secret', id, '--grace', '2h');
          expect(rotated.code).toBe(0);
          expect(rotated.stdout).toMatch(/old secret stays valid until \d{4}-\d\d-\d\dT[\d:.]+Z and signs X-Webhook-Signature until then/);
          const fresh = rotated.stdout.trim().split('\n').pop()!;
          expect(fresh).toMatch(/^whsec_/);
          expect(fresh).not.toBe(secret);
          expect((await run('webhook', 'rotate-secret', id, '--grace', 'soon')).stderr).toMatch(/duration like/);

          const tested = await run('webhook', 'test', id);
          expect(tested).toMatchObject({ code: 0, stdout: expect.stringMatching(/^delivered \(HTTP 200\)/) });
          const [request] = receiver.requests;
          const headers = {
            'webhook-id': String(request!.headers['webhook-id']),
            'webhook-timestamp': String(request!.headers['webhook-timestamp']),
            'webhook-signature': String(request!.headers['webhook-signature']),
          };
          expect(new Webhook(secret).verify(request!.body, headers)).toMatchObject({ event: 'webhook.test' });
          expect(new Webhook(fresh).verify(request!.body, headers)).toMatchObject({ event: 'webhook.test' });
          // In the grace period the SPEC header still carries the old secret, the new one is on -Next.
          const hex = (whsec: string) =>
            createHmac('sha256', Buffer.from(whsec.slice(6), 'base64'))
              .update(request!.body)
              .digest('hex');
          expect(request!.headers['x-webhook-signature']).toBe(hex(secret));
          expect(request!.headers['x-webhook-signature-next']).toBe(hex(fresh));

          const refused = await runCli({ ...env, WEBHOOK_ALLOWED_NETWORKS: '' }, webhookAddArgs(receiver.url, 'product', 'to_erp'));
          expect(refused.code).toBe(1);
          expect(refused.stderr).toMatch(/--url: Deliveries to this address are refused: 127\.0\.0\.1 is a loopback address/);
          expect((await run('webhook', 'remove', id)).code).toBe(0);
        } finally {
          await receiver.close();
        }
      },
      CLI_TEST_TIMEOUT_MS,
    );
  });
});

const describeWithPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

describeWithPostgres('sync-gateway CLI on PostgreSQL (DATABASE_URL)', () => {
  it(
    'migrates a fresh database and manages tokens in it',
    async () => {
      const database = await createPostgresDatabase('postgresql', { migrated: false });
      const env = postgresEnv(database.url, { LOG_LEVEL: 'warn' });
      const run = (...args: string[]) => runCli(env, args);
      try {
        const migrated = await run('migrate');
        expect(migrated).toMatchObject({ code: 0 });
        expect(migrated.stdout).toMatch(/applied: \d{14}_init/);
        const created = await run('token', 'create', '--name', 'pg-erp');
        expect(created.stdout.trim().split('\n').pop()).toMatch(/^sgw_/);
        expect((await run('token', 'list')).stdout).toMatch(/pg-erp/);
      } finally {
        await database.drop();
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    'serves with its webhook worker on a thread of its own: a reported failure is delivered, /ready and /metrics know',
    async () => {
      const database = await createPostgresDatabase();
      const receiver = await startReceiver();
      const env = postgresEnv(database.url, { WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' });
      const run = (...args: string[]) => runCli(env, args);
      let server: ServeProcess | undefined;
      try {
        expect(await run('migrate')).toMatchObject({ code: 0 });
        const token = (await run('token', 'create', '--name', 'erp')).stdout.trim().split('\n').pop()!;
        expect(await run(...webhookAddArgs(receiver.url, 'product', 'to_webshop', 'a-secret-of-16-chars'))).toMatchObject({ code: 0 });
        server = await serveProcess(env);
        const url = server.url;
        const auth = { authorization: `Bearer ${token}` };
        const reported = await fetch(`${url}/api/v1/failures`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ entity_type: 'product', external_id: 'SKU-T', source: 'erp', error_message: 'Unknown tax class' }),
        });
        expect(reported.status).toBe(201);
        await waitFor(() => receiver.requests.length > 0, 60_000, 'the delivery');
        expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ event: 'sync_failure', external_id: 'SKU-T' });
        const ready = await (await fetch(`${url}/ready`)).json();
        expect(ready).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', worker: 'ok' } });
        // The attempt is counted by the thread and reported to the process's registry.
        const metrics = async () => (await fetch(`${url}/metrics`, { headers: auth })).text();
        await waitFor(
          async () => /sync_gateway_webhook_delivery_attempts_total\{outcome="completed"\} 1/.test(await metrics()),
          60_000,
          'the attempt counted',
          {
            intervalMs: 100,
          },
        );
      } finally {
        await server?.stop();
        await receiver.close();
        await database.drop();
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
