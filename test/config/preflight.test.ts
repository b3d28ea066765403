import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createPostgresDatabase } from '../support/database';
import { embeddedEnv, runCli } from '../support/process';

/** A `serve` that fails its pre-flight exits before opening the store; a start still takes seconds beside other suites. */
const TIMEOUT_MS = 120_000;

/** The lines `serve` printed on stderr, without Node's own warnings. */
const problemLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('sync-gateway: '));

describe('serve refuses a bad start with one clear line per problem, before touching the database', () => {
  let tmp: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'sgw-preflight-'));
    env = embeddedEnv(path.join(tmp, 'data'), { ENCRYPTION_KEY: '', LOG_FORMAT: 'json' });
  });
  afterAll(() => rm(tmp, { recursive: true, force: true }));

  const holdPort = () =>
    new Promise<{ server: Server; port: number }>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
    });

  it(
    'names a PORT that another process holds, and leaves the data directory unopened',
    async () => {
      const { server, port } = await holdPort();
      const dataDir = path.join(tmp, 'port-in-use');
      try {
        const result = await runCli({ ...env, DATA_DIR: dataDir, PORT: String(port) }, ['serve']);
        expect(result.code).toBe(1);
        expect(problemLines(result.stderr)).toEqual([
          `sync-gateway: PORT ${port} is already in use on 127.0.0.1 (127.0.0.1:${port}): stop the other process or set PORT to a free port`,
        ]);
        expect(existsSync(path.join(dataDir, 'pglite'))).toBe(false);
        expect(result.stdout).not.toMatch(/migration/);
      } finally {
        server.close();
      }
    },
    TIMEOUT_MS,
  );

  it(
    'names a DATA_DIR that is a file, and leaves the file alone',
    async () => {
      const file = path.join(tmp, 'a-file');
      await writeFile(file, 'not a directory');
      const result = await runCli({ ...env, DATA_DIR: file }, ['serve']);
      expect(result.code).toBe(1);
      expect(problemLines(result.stderr)).toEqual([
        `sync-gateway: DATA_DIR ${file} is a file, not a directory: point DATA_DIR at a directory (it is created when missing)`,
      ]);
    },
    TIMEOUT_MS,
  );

  it(
    'names a DATA_DIR that cannot be created or written, even as root',
    async () => {
      const underFile = path.join(tmp, 'a-file-2', 'data');
      await writeFile(path.join(tmp, 'a-file-2'), '');
      const created = await runCli({ ...env, DATA_DIR: underFile }, ['serve']);
      expect(created.code).toBe(1);
      expect(problemLines(created.stderr)).toEqual([
        `sync-gateway: DATA_DIR ${underFile} cannot be created (ENOTDIR): point DATA_DIR at a directory this user can write`,
      ]);

      // /proc is a directory no user, root included, can create files in.
      const written = await runCli({ ...env, DATA_DIR: '/proc' }, ['serve']);
      expect(written.code).toBe(1);
      expect(problemLines(written.stderr)).toEqual([
        expect.stringMatching(
          /^sync-gateway: DATA_DIR \/proc is not writable \(E[A-Z]+\): point DATA_DIR at a directory this user can write$/,
        ),
      ]);
      expect(readdirSync('/proc').some((name) => name.startsWith('.write-test'))).toBe(false);
    },
    TIMEOUT_MS,
  );

  it(
    'reports every problem at once, one line each',
    async () => {
      const { server, port } = await holdPort();
      try {
        const file = path.join(tmp, 'a-file');
        const result = await runCli({ ...env, DATA_DIR: file, PORT: String(port) }, ['serve']);
        expect(result.code).toBe(1);
        expect(problemLines(result.stderr)).toEqual([
          expect.stringMatching(/DATA_DIR .* is a file/),
          expect.stringMatching(new RegExp(`PORT ${port} is already in use`)),
        ]);
      } finally {
        server.close();
      }
    },
    TIMEOUT_MS,
  );

  it(
    'asks for ENCRYPTION_KEY with DATABASE_URL before any migration runs',
    async () => {
      // Without a PostgreSQL server the URL points nowhere: a start that connected first would fail differently.
      const database = process.env.TEST_DATABASE_URL ? await createPostgresDatabase('postgresql', { migrated: false }) : undefined;
      try {
        const url = database?.url ?? 'postgresql://postgres@127.0.0.1:1/nowhere';
        for (const command of ['serve', 'worker']) {
          const result = await runCli({ ...env, DATABASE_URL: url, DATA_DIR: path.join(tmp, 'unused') }, [command]);
          expect(result.code).toBe(1);
          expect(problemLines(result.stderr)).toEqual([
            'sync-gateway: ENCRYPTION_KEY is required with DATABASE_URL (every replica must use the same key): generate one with `openssl rand -hex 32`',
          ]);
        }
        if (database) {
          const client = new Client({ connectionString: database.url });
          await client.connect();
          const { rows } = await client.query(`SELECT to_regclass('public._prisma_migrations') AS t`);
          await client.end();
          expect(rows[0].t).toBeNull();
        }
      } finally {
        await database?.drop();
      }
    },
    TIMEOUT_MS,
  );
});
