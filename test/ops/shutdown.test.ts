import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runningClusterUrl } from '../../src/db/embedded-postgres';
import { CLI, embeddedEnv, ROOT, serveProcess, type ServeProcess } from '../support/process';
import { freePort, startRedisServer, type RedisServer } from '../support/redis-server';
import { waitFor } from '../support/wait-for';

/**
 * Issue 30: SIGTERM ends the process within SHUTDOWN_GRACE_MS whatever Redis is doing. Before, a
 * QUIT to an unreachable Redis waited in ioredis's offline queue forever: replicas were still
 * running 15 minutes after SIGTERM. The embedded store's cluster is stopped too (nothing orphaned).
 * Redis is a server of the test's own, killed at will.
 */
const GRACE_MS = 2_000;
/** The grace, the store's own stop (pool, the cluster's fast shutdown) and process teardown. */
const EXIT_WITHIN_MS = GRACE_MS + 8_000;
/** A redis-server of the test's own needs the binary, which machines with TEST_REDIS_URL have. */
const itWithRedisServer = process.env.TEST_REDIS_URL ? it : it.skip;

describe('SIGTERM with Redis unreachable', () => {
  let dataDir: string;
  let server: ServeProcess | undefined;
  let redis: RedisServer | undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-stop-'));
  });
  afterEach(async () => {
    await server?.stop('SIGKILL');
    await redis?.kill();
    await rm(dataDir, { recursive: true, force: true });
  });

  const env = (redisUrl: string): NodeJS.ProcessEnv => embeddedEnv(dataDir, { REDIS_URL: redisUrl, SHUTDOWN_GRACE_MS: String(GRACE_MS) });

  async function stopsWithinGrace(running: ServeProcess): Promise<void> {
    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => running.child.once('exit', (code) => resolve(code)));
    running.child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 60_000))]);
    const tookMs = Date.now() - started;
    expect({ code, output: code === 0 ? '' : running.output().slice(-2_000) }).toEqual({ code: 0, output: '' });
    expect(tookMs).toBeLessThanOrEqual(EXIT_WITHIN_MS);
    expect(running.output()).toContain('"msg":"stopped"');
    // The cluster went with it: nothing left running on DATA_DIR.
    expect(await runningClusterUrl(dataDir)).toBeUndefined();
  }

  itWithRedisServer('exits within the grace when Redis went away while it ran', async () => {
    redis = await startRedisServer();
    server = await serveProcess(env(redis.url));
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    await redis.kill();
    await stopsWithinGrace(server);
  });

  it('exits within the grace when Redis was never reachable', async () => {
    const closedPort = await freePort();
    server = await serveProcess(env(`redis://127.0.0.1:${closedPort}`));
    await stopsWithinGrace(server);
  });
});

describe('a signal while the start runs', () => {
  let dataDir: string;
  let child: ChildProcessWithoutNullStreams | undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-stop-early-'));
  });
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  function serve(env: NodeJS.ProcessEnv) {
    child = spawn(process.execPath, [...CLI, 'serve'], {
      env: { ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', REDIS_URL: '', ...env },
      cwd: ROOT,
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    return { child, output: () => output, exited };
  }

  it('on the embedded store, once its cluster runs, stops the cluster too (nothing orphaned)', async () => {
    const running = serve({ DATABASE_URL: '' });
    await waitFor(
      async () => (await runningClusterUrl(dataDir)) !== undefined || running.child.exitCode !== null,
      60_000,
      'the cluster runs',
    );
    const listeningAtSignal = running.output().includes('"sync-gateway listening"');
    running.child.kill('SIGTERM');
    const code = await running.exited;
    expect({ listeningAtSignal, code }).toEqual({ listeningAtSignal: false, code: 0 });
    expect(running.output()).toContain('"msg":"stopped"');
    expect(await runningClusterUrl(dataDir)).toBeUndefined();
  });

  it('on a database server that cannot be reached, exits at once instead of waiting for it', async () => {
    const closedPort = await freePort();
    const running = serve({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${closedPort}/nothing`, ENCRYPTION_KEY: 'ab'.repeat(32) });
    await waitFor(() => running.output().includes('retrying') || running.child.exitCode !== null, 60_000, 'a retry line');
    const signalled = Date.now();
    running.child.kill('SIGTERM');
    const code = await running.exited;
    expect({ code, withinMs: Date.now() - signalled < 5_000, output: code === 143 ? '' : running.output() }).toEqual({
      code: 143,
      withinMs: true,
      output: '',
    });
  });
});
