import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { Client } from 'pg';
import { createLimitedRole, createPostgresDatabase } from '../support/database';
import { CLI, ROOT, runCli } from '../support/process';

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
    const env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'warn' };
    expect((await runCli(env, ['migrate'])).code).toBe(0);
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
    const child = spawn(process.execPath, [...CLI, 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: limitedUrl,
        ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        DATABASE_CONNECT_TIMEOUT_MS: '60000',
      },
      cwd: ROOT,
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const lines = () =>
      output
        .split('\n')
        .filter(Boolean)
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as Record<string, unknown>];
          } catch {
            return [];
          }
        });
    const waitFor = async (condition: () => boolean, ms: number, what: string) => {
      for (const started = Date.now(); !condition(); await new Promise((r) => setTimeout(r, 50))) {
        if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode} while waiting for ${what}: ${output}`);
        if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms: ${output}`);
      }
    };
    try {
      await waitFor(() => lines().filter((l) => l.msg?.toString().includes('retrying')).length >= 2, 30_000, 'two retry lines');
      const retry = lines().find((l) => l.msg?.toString().includes('retrying'))!;
      // Where the connection goes: the socket directory the URL's host parameter names, on port 5432.
      const host = new URL(limitedUrl).searchParams.get('host')!;
      expect(retry).toMatchObject({ host, port: 5432, cause: expect.stringMatching(/^53300: too many connections/) });
      expect(retry.msg).toBe(`database ${host}:5432 unreachable (53300: too many connections); retrying`);
      expect(output).not.toContain('sync-gateway listening');

      await Promise.all(held.splice(0).map((c) => c.end()));
      await waitFor(() => output.includes('"sync-gateway listening"'), 60_000, 'listening');
      const url = lines().find((l) => l.msg === 'sync-gateway listening')!.url as string;
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const ready = async () => (await fetch(`${url}/ready`)).status;
      let status = 0;
      for (const started = Date.now(); Date.now() - started < 20_000 && status !== 200; await new Promise((r) => setTimeout(r, 200)))
        status = await ready();
      expect(status).toBe(200);
    } finally {
      await Promise.all(held.map((c) => c.end()));
      child.kill('SIGTERM');
      await exited;
    }
  }, 120_000);
});
