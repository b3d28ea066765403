import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runningClusterUrl } from '../../src/db/embedded-postgres';
import { embeddedEnv, serveProcess, spawnServe, type ServeChild, type ServeProcess } from '../support/process';
import { freePort, startRedisServer, type RedisServer } from '../support/redis-server';
import { waitFor } from '../support/wait-for';

/**
 * Issue 30: SIGTERM ends the process within SHUTDOWN_GRACE_MS whatever Redis is doing. Before, a
 * QUIT to an unreachable Redis waited in ioredis's offline queue forever: replicas were still
 * running 15 minutes after SIGTERM. The embedded store's cluster is stopped too (nothing orphaned).
 * Redis is a server of the test's own, killed at will.
 *
 * Checked by how the process ended, not by the clock: exit code 0 after "stopped" is a shutdown
 * that finished its steps (each one bounded by the grace), while Redis was still unreachable;
 * one that hung would be ended by the last resort at the grace plus the store's stop, with code 1.
 */
const GRACE_MS = 2_000;
/** Only a bound on a failing test, far beyond the last resort (the grace plus 15 s). */
const HANG_MS = 60_000;
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
    const exited = new Promise<number | null>((resolve) => running.child.once('exit', (code) => resolve(code)));
    running.child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), HANG_MS))]);
    expect({ code, output: code === 0 ? '' : running.output().slice(-2_000) }).toEqual({ code: 0, output: '' });
    expect(running.output()).toContain('"msg":"stopped"');
    expect(running.output()).not.toContain('ran past SHUTDOWN_GRACE_MS');
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
  let running: ServeChild | undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-stop-early-'));
  });
  afterEach(async () => {
    const child = running?.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  const serve = (env: NodeJS.ProcessEnv) => (running = spawnServe(embeddedEnv(dataDir, { REDIS_URL: '', ...env })));

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
    running.child.kill('SIGTERM');
    // 143 (128 + SIGTERM) is the exit the signal handler makes at once; a start that went on waiting
    // for the database and then stopped would exit with 0 or 1.
    const code = await running.exited;
    expect({ code, output: code === 143 ? '' : running.output() }).toEqual({ code: 143, output: '' });
  });
});
