import { access, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { lockDataDir } from '../../src/db/data-dir-lock';
import { runningClusterUrl } from '../../src/db/embedded-postgres';
import { embeddedEnv, ROOT, runCli, serveProcess, type ServeProcess } from '../support/process';
import { startReceiver } from '../support/receiver';
import { waitFor } from '../support/wait-for';

/** A ceiling against hangs on a loaded two-core machine, not a target. */
const TIMEOUT_MS = 600_000;

const baseEnv = (dataDir: string): NodeJS.ProcessEnv => embeddedEnv(dataDir, { LOG_FORMAT: 'json' });

describe('the CLI while the embedded server runs (its cluster, through the socket in DATA_DIR)', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let server: ServeProcess;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-ctl-'));
    // The longest token cache there is: a revocation must not wait for it.
    env = { ...baseEnv(dataDir), TOKEN_CACHE_TTL_MS: '300000', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' };
    server = await serveProcess(env);
  }, TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Refused (401) long before TOKEN_CACHE_TTL_MS (5 minutes): only the server's being told explains it. */
  const refusedSoon = (auth: Record<string, string>) =>
    waitFor(async () => (await fetch(`${server.url}/api/v1/updated-products`, { headers: auth })).status === 401, 60_000, 'refused', {
      intervalMs: 200,
    });

  it('reaches the cluster only through a socket in DATA_DIR that other OS users cannot open, with a password', async () => {
    const url = await runningClusterUrl(dataDir);
    expect(url).toBeDefined();
    const socketDir = new URL(url!).searchParams.get('host')!;
    expect(socketDir).toBe(path.join(dataDir, 'postgres'));
    const info = await stat(socketDir);
    expect(info.mode & 0o777).toBe(0o700);
    const client = new Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ listen: string }>(`SELECT current_setting('listen_addresses') AS listen`);
    await client.end();
    expect(rows[0]!.listen).toBe('');
    const wrong = new URL(url!);
    wrong.password = 'not-the-password';
    await expect(new Client({ connectionString: wrong.toString() }).connect()).rejects.toThrow(/password authentication failed/);
  });

  it(
    'creates and lists tokens while the server runs; the new token works against it at once; a revocation is effective at once',
    async () => {
      const created = await runCli(env, ['token', 'create', '--name', 'erp']);
      expect(created).toMatchObject({ code: 0, stderr: '' });
      const token = created.stdout.trim().split('\n').pop()!;
      expect(token).toMatch(/^sgw_[A-Za-z0-9_-]{43}$/);

      const listed = await runCli(env, ['token', 'list']);
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      expect(listed.stdout).toMatch(/erp/);
      expect(listed.stdout).not.toContain(token);

      const auth = { authorization: `Bearer ${token}` };
      const pushed = await fetch(`${server.url}/api/v1/products`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ products: [{ external_id: 'CTL-1', name: 'cup' }] }),
      });
      expect(pushed.status).toBe(200);
      const polled = await fetch(`${server.url}/api/v1/updated-products`, { headers: auth });
      expect(polled.status).toBe(200);
      expect((await polled.json()).payload).toEqual([expect.objectContaining({ externalId: 'CTL-1' })]);

      const revoked = await runCli(env, ['token', 'revoke', 'erp']);
      expect(revoked).toMatchObject({ code: 0, stderr: '' });
      // Cached for TOKEN_CACHE_TTL_MS (5 minutes here) unless the server is told: NOTIFY tells it.
      await refusedSoon(auth);
    },
    TIMEOUT_MS,
  );

  it(
    'connects a second shop in three commands while the server runs; each shop acknowledges on its own channel; delete revokes',
    async () => {
      const tokenOf = async (args: string[]) => {
        const created = await runCli(env, ['token', 'create', ...args]);
        expect(created).toMatchObject({ code: 0, stderr: '' });
        return { authorization: `Bearer ${created.stdout.trim().split('\n').pop()!}` };
      };
      const erp = await tokenOf(['--name', 'ch-erp', '--role', 'erp']);
      const shopA = await tokenOf(['--name', 'ch-shop-a', '--role', 'webshop']);
      const pushed = await fetch(`${server.url}/api/v1/products`, {
        method: 'POST',
        headers: { ...erp, 'content-type': 'application/json' },
        body: JSON.stringify({ products: [{ external_id: 'CH-1', name: 'lamp' }] }),
      });
      expect(pushed.status).toBe(200);

      // The three commands of docs/operations.md.
      expect(await runCli(env, ['channel', 'create', 'shop-b', '--from', 'all'])).toMatchObject({ code: 0, stderr: '' });
      const shopB = await tokenOf(['--name', 'ch-shop-b', '--role', 'webshop', '--channel', 'shop-b']);
      const listed = await runCli(env, ['channel', 'list']);
      expect(listed.stdout).toMatch(/shop-b/);
      expect(listed.stdout).toMatch(/ch-shop-b/);

      const poll = async (auth: Record<string, string>) =>
        (await (await fetch(`${server.url}/api/v1/updated-products?limit=500`, { headers: auth })).json()) as {
          payload: Array<{ id: number; externalId: string; isNew: boolean }>;
          meta: { total: number };
        };
      const onB = await poll(shopB);
      expect(onB.payload.map((p) => p.externalId)).toContain('CH-1');
      const ids = onB.payload.map((p) => p.id);
      const acked = await fetch(`${server.url}/api/v1/updated-products/batch-delete`, {
        method: 'POST',
        headers: { ...shopB, 'content-type': 'application/json' },
        body: JSON.stringify({ ids }),
      });
      expect(acked.status).toBe(200);
      expect((await poll(shopB)).meta.total).toBe(0);
      expect((await poll(shopA)).payload.map((p) => p.externalId)).toContain('CH-1');

      const deleted = await runCli(env, ['channel', 'delete', 'shop-b']);
      expect(deleted).toMatchObject({ code: 0 });
      expect(deleted.stdout).toMatch(/revoked tokens: ch-shop-b/);
      await refusedSoon(shopB);
    },
    TIMEOUT_MS,
  );

  it(
    "pushes a channel to a URL from the CLI: the server's worker delivers its changes and the 2xx acknowledges them",
    async () => {
      const receiver = await startReceiver(() => ({ status: 204 }));
      try {
        const created = await runCli(env, [
          'channel',
          'create',
          'pushed',
          '--from',
          'all',
          '--push-url',
          receiver.url,
          '--batch-size',
          '50',
        ]);
        expect(created).toMatchObject({ code: 0, stderr: '' });
        expect(created.stdout.trim().split('\n').pop()).toMatch(/^whsec_/);
        const delivered = () =>
          receiver.requests.flatMap((r) => (JSON.parse(r.body) as { records: Array<{ externalId?: string }> }).records);
        await waitFor(() => delivered().some((r) => r.externalId === 'CTL-1'), 60_000, 'CTL-1 pushed');
        expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ event: 'changes', channel: 'pushed' });
        // Acknowledged by the 2xx: nothing of it stays pending on the channel.
        await waitFor(
          async () => /pushed.*product 0/.test((await runCli(env, ['channel', 'list'])).stdout),
          60_000,
          'nothing pending on pushed',
          {
            intervalMs: 200,
          },
        );
        expect(await runCli(env, ['channel', 'poll', 'pushed'])).toMatchObject({ code: 0, stderr: '' });
      } finally {
        await receiver.close();
      }
    },
    TIMEOUT_MS,
  );

  it(
    'serves concurrent CLI commands: four token creations at once each get their own token',
    async () => {
      const names = Array.from({ length: 4 }, (_, i) => `parallel-${i}`);
      const results = await Promise.all(names.map((name) => runCli(env, ['token', 'create', '--name', name])));
      expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0]);
      expect(new Set(results.map((r) => r.stdout.trim().split('\n').pop())).size).toBe(4);
      const listed = await runCli(env, ['token', 'list']);
      for (const name of names) expect(listed.stdout).toContain(name);
      const duplicate = await runCli(env, ['admin', 'create', '--email', 'ops@example.com', '--password', 'long enough password']);
      expect(duplicate.code).toBe(0);
      const again = await runCli(env, ['admin', 'create', '--email', 'ops@example.com']);
      expect(again).toMatchObject({ code: 1, stdout: '' });
      expect(again.stderr.trim()).toBe('sync-gateway: An account for ops@example.com already exists');
    },
    TIMEOUT_MS,
  );
});

describe('the CLI with no server to answer', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-ctl-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it(
    'refuses with one clear message when another live process holds the store and runs no database',
    async () => {
      // This test process holds the lock (it is alive, so no takeover) and starts no cluster.
      const release = await lockDataDir(dataDir, () => undefined);
      try {
        const refused = await runCli({ ...baseEnv(dataDir), CLI_WAIT_FOR_SERVER_MS: '1500' }, ['token', 'list']);
        expect(refused.code).toBe(1);
        expect(refused.stdout).toBe('');
        expect(refused.stderr).toMatch(/is in use; waiting up to 2 s for its server's database to start/);
        expect(refused.stderr).toMatch(
          new RegExp(
            `sync-gateway: The data directory .* is in use by another sync-gateway process .*pid ${process.pid}.* and its database did not accept connections within 2 s`,
          ),
        );
      } finally {
        await release();
      }
    },
    TIMEOUT_MS,
  );

  it(
    'validates arguments before it connects or opens anything: one line, nothing created',
    async () => {
      const fresh = path.join(dataDir, 'never-created');
      const env = baseEnv(fresh);
      const bad = await runCli(env, ['admin', 'create', '--email', 'a@b.c']);
      expect(bad).toMatchObject({ code: 1, stdout: '', stderr: 'sync-gateway: --email: Must be an email address\n' });
      const short = await runCli(env, ['admin', 'create', '--email', 'ops@example.com', '--password', 'short']);
      expect(short.stderr).toBe('sync-gateway: --password: At least 12 characters\n');
      const name = await runCli(env, ['token', 'create', '--name', '   ']);
      expect(name.stderr).toBe('sync-gateway: --name: 1 to 100 characters\n');
      await expect(access(fresh)).rejects.toMatchObject({ code: 'ENOENT' });

      // Also while the store is held: the argument is refused at once, not after a wait.
      const release = await lockDataDir(dataDir, () => undefined);
      try {
        const held = await runCli({ ...baseEnv(dataDir), CLI_WAIT_FOR_SERVER_MS: '600000' }, ['admin', 'create', '--email', 'a@b.c']);
        expect(held).toMatchObject({ code: 1, stderr: 'sync-gateway: --email: Must be an email address\n' });
      } finally {
        await release();
      }
    },
    TIMEOUT_MS,
  );

  it('prints its version with --version and -v', async () => {
    const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await runCli(baseEnv(dataDir), ['--version'])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect((await runCli(baseEnv(dataDir), ['-v'])).stdout).toBe(`${version}\n`);
  });
});
