import { Client } from 'pg';
import { createLimitedRole, createPostgresDatabase } from '../support/database';
import { postgresEnv, runCli, spawnServe } from '../support/process';
import { waitFor } from '../support/wait-for';

/**
 * A replica started while its database is full waits, says why on every attempt, and starts when
 * connections free up. "Full" is a role's CONNECTION LIMIT (a superuser ignores limits), held by
 * the test's own connections. Once per run, on the embedded test cluster (DATABASE_URL over its
 * Unix socket: the URL's `host` parameter is where the server is).
 */
const LIMIT = 20;

describe('starting against a full database', () => {
  let database: { url: string; drop(): Promise<void> };
  let admin: Client;
  let limitedUrl: string;
  let limited: { url: string; drop(): Promise<void> } | undefined;

  beforeAll(async () => {
    database = await createPostgresDatabase('embedded');
    expect((await runCli(postgresEnv(database.url, { LOG_LEVEL: 'warn' }), ['migrate'])).code).toBe(0);
    admin = new Client({ connectionString: database.url });
    await admin.connect();
    limited = await createLimitedRole(database.url, LIMIT);
    limitedUrl = limited.url;
  }, 120_000);

  afterAll(async () => {
    await admin?.end();
    await database?.drop();
    await limited?.drop();
  }, 60_000);

  it('waits with a line naming host, port and cause per attempt, then starts', async () => {
    const held: Client[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const c = new Client({ connectionString: limitedUrl });
      await c.connect();
      held.push(c);
    }
    const { child, output, lines, exited } = spawnServe(postgresEnv(limitedUrl, { DATABASE_CONNECT_TIMEOUT_MS: '60000' }));
    /** Until `condition` holds; failing at once, with the output, if serve exits meanwhile. */
    const until = async (condition: () => boolean, ms: number, what: string) => {
      await waitFor(() => condition() || child.exitCode !== null, ms, what);
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode} while waiting for ${what}: ${output()}`);
    };
    try {
      const retries = () => lines().filter((l) => String(l.msg).includes('retrying'));
      // Full, the cause; an attempt on a busy machine may also run out of time connecting (a cause of its own).
      const full = () => retries().filter((l) => String(l.cause).startsWith('53300'));
      await until(() => retries().length >= 2 && full().length >= 1, 60_000, 'two retry lines, one saying the database is full');
      // Where the connection goes: the socket directory the URL's host parameter names, on port 5432.
      const host = new URL(limitedUrl).searchParams.get('host')!;
      for (const retry of retries()) expect(retry).toMatchObject({ host, port: 5432, cause: expect.any(String) });
      expect(full()[0]).toMatchObject({ cause: expect.stringMatching(/^53300: too many connections/) });
      expect(full()[0]!.msg).toBe(`database ${host}:5432 unreachable (53300: too many connections); retrying`);
      expect(output()).not.toContain('sync-gateway listening');

      await Promise.all(held.splice(0).map((c) => c.end()));
      await until(() => output().includes('"sync-gateway listening"'), 90_000, 'listening');
      const url = lines().find((l) => l.msg === 'sync-gateway listening')!.url as string;
      expect((await fetch(`${url}/health`)).status).toBe(200);
      await waitFor(async () => (await fetch(`${url}/ready`)).status === 200, 60_000, 'GET /ready 200', { intervalMs: 200 });
    } finally {
      await Promise.all(held.map((c) => c.end()));
      child.kill('SIGTERM');
      await exited;
    }
  }, 240_000);
});
