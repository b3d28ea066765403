import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { formatLogLine } from '../src/pretty-log';
import { renderStartupBanner, startupFields } from '../src/startup-banner';
import { embeddedEnv, runCli, serveProcess, spawnServe } from './support/process';
import { waitFor } from './support/wait-for';

const TIMEOUT_MS = 180_000;

describe('the start-up block', () => {
  it('names every place and, without a token, the command that makes one', () => {
    const fields = startupFields({
      url: 'http://127.0.0.1:4000',
      backend: 'embedded',
      dataDir: '/srv/data',
      location: '/srv/data/pglite',
      worker: true,
      activeApiTokens: 0,
    });
    expect(renderStartupBanner(fields)).toEqual([
      'sync-gateway is ready',
      '  REST API        http://127.0.0.1:4000/api/v1',
      '  API reference   http://127.0.0.1:4000/api/reference',
      '  OpenAPI         http://127.0.0.1:4000/api/doc',
      '  GraphQL         http://127.0.0.1:4000/graphql',
      '  Admin console   http://127.0.0.1:4000/admin  (first admin: node bin/sync-gateway.js admin create --email you@example.com)',
      '  Data directory  /srv/data',
      '  → no API token yet: run `node bin/sync-gateway.js token create --name erp` in another terminal (the server keeps running)',
    ]);
    const onPostgres = startupFields({
      url: 'http://h:1',
      backend: 'postgresql',
      dataDir: '/unused',
      location: 'db:5432/sgw',
      worker: false,
      activeApiTokens: 2,
      adminAccounts: 1,
    });
    expect(onPostgres.dataDir).toBeUndefined();
    expect(onPostgres.firstAdmin).toBeUndefined();
    expect(renderStartupBanner(onPostgres)).toContain('  Admin console  http://h:1/admin');
    expect(onPostgres.next).toBeUndefined();
    // With a token there, the block says how to connect a second shop on a channel of its own.
    expect(renderStartupBanner(onPostgres).at(-1)).toBe(
      '  → another shop with its own feed: `node bin/sync-gateway.js channel create shop-b --from all`, ' +
        '`node bin/sync-gateway.js token create --name shop-b --role webshop --channel shop-b`, then give shop-b that token',
    );
    expect(renderStartupBanner(onPostgres)).toContain('  Database       PostgreSQL db:5432/sgw');
  });

  it('formats other log lines for people: time, level, message, fields, stack', () => {
    const line = JSON.stringify({
      level: 50,
      time: Date.UTC(2026, 0, 1, 12),
      service: 'sync-gateway',
      msg: 'request failed',
      status: 500,
      path: '/x',
      err: { message: 'boom', stack: 'Error: boom\n    at here' },
    });
    const text = formatLogLine(line);
    expect(text).toMatch(/^\d\d:\d\d:\d\d ERROR request failed status=500 path=\/x\nError: boom\n {4}at here\n$/);
    expect(formatLogLine('not json')).toBe('not json\n');
  });
});

describe('serve says where things are', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-banner-'));
    env = embeddedEnv(dataDir, { ENCRYPTION_KEY: '' });
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it(
    'in the JSON start-up line as fields, with the token hint until a token exists',
    async () => {
      const first = await serveProcess({ ...env, LOG_FORMAT: 'json' });
      const line = (output: string) => JSON.parse(output.split('\n').find((l) => l.includes('"sync-gateway listening"'))!);
      try {
        const fields = line(first.output());
        expect(fields).toMatchObject({
          url: first.url,
          admin: `${first.url}/admin`,
          graphql: `${first.url}/graphql`,
          apiDoc: `${first.url}/api/doc`,
          apiReference: `${first.url}/api/reference`,
          dataDir,
          activeApiTokens: 0,
          next: expect.stringMatching(/^no API token yet: .*node bin\/sync-gateway\.js token create/),
        });
        // Each place answers a browser (the console may be unbuilt here: 503 naming the build command).
        const status = async (url: string) => (await fetch(url, { headers: { accept: 'text/html' }, redirect: 'manual' })).status;
        expect(await status(fields.graphql)).toBe(200);
        expect(await status(fields.apiReference)).toBe(200);
        expect(await status(fields.apiDoc)).toBe(303);
        expect([200, 503]).toContain(await status(fields.admin));
      } finally {
        await first.stop();
      }
      expect((await runCli(env, ['token', 'create', '--name', 'erp'])).code).toBe(0);
      const second = await serveProcess({ ...env, LOG_FORMAT: 'json' });
      try {
        const fields = line(second.output());
        expect(fields.activeApiTokens).toBe(1);
        expect(fields.next).toBeUndefined();
      } finally {
        await second.stop();
      }
    },
    TIMEOUT_MS,
  );

  it(
    'as a block of plain lines when logs are pretty',
    async () => {
      const { child, output, exited } = spawnServe({ ...env, LOG_FORMAT: 'pretty' });
      try {
        await waitFor(() => output().includes('Admin console') || child.exitCode !== null, 60_000, 'the start-up block');
      } finally {
        child.kill('SIGTERM');
      }
      // The whole output, to the process's end: the shutdown's lines are pretty too.
      expect(await exited).toBe(0);
      expect(output()).not.toMatch(/^\{/m); // no JSON line
      expect(output()).toMatch(/INFO {2}sync-gateway is ready\n\s+REST API +http:\/\/127\.0\.0\.1:\d+\/api\/v1\n/);
      expect(output()).toMatch(new RegExp(`Data directory +${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
    },
    TIMEOUT_MS,
  );
});
