import { access, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { z } from 'zod';
import { openControlSocket } from '../../src/control/control-socket';
import { callControlSocket, NoControlSocket } from '../../src/control/control-client';
import { defineOperation, type ControlContext, type ControlOperation } from '../../src/control/operation';
import { controlSocketPath, ControlOperationError } from '../../src/control/protocol';
import { lockDataDir } from '../../src/db/data-dir-lock';
import { AppError } from '../../src/errors/app-error';
import { ROOT, runCli, serveProcess, type ServeProcess } from '../support/process';

/** A ceiling against hangs on a loaded two-core machine, not a target. */
const TIMEOUT_MS = 600_000;
const silent = pino({ level: 'silent' });

const baseEnv = (dataDir: string): NodeJS.ProcessEnv => ({
  ...process.env,
  DATA_DIR: dataDir,
  DATABASE_URL: '',
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'info',
  LOG_FORMAT: 'json',
});

describe('the CLI while the embedded server runs (control socket in DATA_DIR)', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let server: ServeProcess;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-ctl-'));
    // The longest token cache there is: a revocation must not wait for it.
    env = { ...baseEnv(dataDir), TOKEN_CACHE_TTL_MS: '300000' };
    server = await serveProcess(env);
  }, TIMEOUT_MS);
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('listens on DATA_DIR/sync-gateway.sock with mode 0600, a socket only its OS user can open', async () => {
    const info = await stat(controlSocketPath(dataDir));
    expect(info.isSocket()).toBe(true);
    expect(info.mode & 0o777).toBe(0o600);
    expect(info.uid).toBe(process.getuid!());
  });

  it(
    'creates and lists tokens while the server runs; the new token works against it at once; a revocation is effective at once',
    async () => {
      const created = await runCli(env, ['token', 'create', '--name', 'erp']);
      expect(created).toMatchObject({ code: 0, stderr: '' });
      const token = created.stdout.trim().split('\n').pop()!;
      expect(token).toMatch(/^sgw_[A-Za-z0-9_-]{43}$/);
      expect(server.output()).toMatch(/"operation":"token.create","msg":"ran a control operation for the CLI"/);

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
      // Cached for TOKEN_CACHE_TTL_MS (5 minutes here) unless the server is told: it was.
      expect((await fetch(`${server.url}/api/v1/updated-products`, { headers: auth })).status).toBe(401);
    },
    TIMEOUT_MS,
  );

  it(
    'answers concurrent clients: eight token creations at once each get their own token',
    async () => {
      const names = Array.from({ length: 8 }, (_, i) => `parallel-${i}`);
      const results = (await Promise.all(
        names.map((name) => callControlSocket(controlSocketPath(dataDir), 'token.create', { name, role: 'integration' })),
      )) as Array<{ token: string; summary: { name: string } }>;
      expect(results.map((r) => r.summary.name).sort()).toEqual([...names].sort());
      expect(new Set(results.map((r) => r.token)).size).toBe(8);
      const listed = await runCli(env, ['token', 'list']);
      for (const name of names) expect(listed.stdout).toContain(name);
    },
    TIMEOUT_MS,
  );

  it(
    'validates again on the server side and reports errors of the operation as the CLI would',
    async () => {
      const socketPath = controlSocketPath(dataDir);
      await expect(callControlSocket(socketPath, 'token.create', { name: '' })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'name', message: '1 to 100 characters' }],
      });
      await expect(callControlSocket(socketPath, 'no.such.operation', {})).rejects.toMatchObject({ code: 'NOT_FOUND' });
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
    'refuses with one clear message when another live process holds the store and nothing answers on the socket',
    async () => {
      // This test process holds the lock (it is alive, so no takeover) and opens no socket.
      const release = await lockDataDir(dataDir, () => undefined);
      try {
        const refused = await runCli({ ...baseEnv(dataDir), CLI_WAIT_FOR_SERVER_MS: '1500' }, ['token', 'list']);
        expect(refused.code).toBe(1);
        expect(refused.stdout).toBe('');
        expect(refused.stderr).toMatch(/is in use; waiting up to 2 s for its server to answer/);
        expect(refused.stderr).toMatch(
          new RegExp(
            `sync-gateway: The data directory .* is in use by another sync-gateway process .*pid ${process.pid}.* and nothing answered on .*sync-gateway\\.sock within 2 s`,
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

describe('the control socket protocol (registry of named operations)', () => {
  let dataDir: string;
  const echo = defineOperation({
    name: 'test.echo',
    args: z.object({ text: z.string().max(5) }),
    run: async (context, { text }) => ({ text, runsIn: context.runsIn }),
  });
  const failing = defineOperation({
    name: 'test.fail',
    args: z.object({}),
    run: () => Promise.reject(new AppError('CONFLICT', 'already there', [{ field: 'name', message: 'taken' }])),
  });
  const context = { runsIn: 'server' } as ControlContext;
  const registry = new Map<string, ControlOperation>([echo, failing].map((op) => [op.name, op as ControlOperation]));

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-ctl-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('runs a registered operation, refuses invalid arguments, unknown operations and garbage, and removes its socket on close', async () => {
    const socket = (await openControlSocket({ dataDir, context, logger: silent, operations: registry }))!;
    try {
      expect(await callControlSocket(socket.path, 'test.echo', { text: 'hi' })).toEqual({ text: 'hi', runsIn: 'server' });
      await expect(callControlSocket(socket.path, 'test.echo', { text: 'too long' })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [{ field: 'text', message: expect.any(String) }],
      });
      const failed = await callControlSocket(socket.path, 'test.fail', {}).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(ControlOperationError);
      expect(failed).toMatchObject({ code: 'CONFLICT', message: 'already there', details: [{ field: 'name', message: 'taken' }] });
      await expect(callControlSocket(socket.path, 'token.create', {})).rejects.toMatchObject({ code: 'NOT_FOUND' });
      for (const garbage of ['not json\n', 'null\n', '42\n'])
        expect(JSON.parse(await rawExchange(socket.path, garbage))).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
      await expect(callControlSocket(socket.path, 'test.echo', { text: 'a\u0000' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      // Still answering after all that.
      expect(await callControlSocket(socket.path, 'test.echo', { text: 'ok' })).toMatchObject({ text: 'ok' });
    } finally {
      await socket.close();
    }
    await expect(access(socket.path)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('replaces a socket file left by a dead process, and closes while a client sits idle', async () => {
    const first = (await openControlSocket({ dataDir, context, logger: silent, operations: registry }))!;
    const idle = connect(first.path);
    await new Promise((resolve) => idle.once('connect', resolve));
    await first.close();
    idle.destroy();
    // A crash (kill -9) leaves the file behind, which nothing answers on.
    await writeFile(first.path, '');
    await expect(callControlSocket(first.path, 'test.echo', { text: 'no' })).rejects.toBeInstanceOf(NoControlSocket);
    const again = (await openControlSocket({ dataDir, context, logger: silent, operations: registry }))!;
    try {
      expect(await callControlSocket(again.path, 'test.echo', { text: 'ok' })).toMatchObject({ text: 'ok' });
    } finally {
      await again.close();
    }
  });

  it('declines a DATA_DIR too long for a Unix socket path, with a warning instead of a failed start', async () => {
    const deep = path.join(dataDir, 'x'.repeat(120));
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    expect(await openControlSocket({ dataDir: deep, context, logger, operations: registry })).toBeUndefined();
    expect(warnings.join('')).toMatch(/too long a path for the control socket/);
  });
});

function rawExchange(socketPath: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath, () => socket.write(request));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}
