import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { runningClusterUrl } from '../../src/db/embedded-postgres';
import { embeddedEnv, ROOT, serveProcess, type ServeProcess } from '../support/process';
import { waitFor } from '../support/wait-for';

/**
 * What `npm start` runs: bin/sync-gateway.js on the bundle in dist/bundle (scripts/bundle.js), the
 * one start the other suites do not make (they run src/ compiled file by file). Everything that
 * finds files beside the code is used once: the migration and webhook worker threads, the
 * migrations, the console, GraphiQL's and Swagger UI's assets; and the CLI, from the same bundle,
 * reaches the running server's cluster.
 */
const BIN = path.join(ROOT, 'bin', 'sync-gateway.js');
const run = promisify(execFile);

describe('the built entry point (npm start)', () => {
  let dataDir: string;
  let server: ServeProcess | undefined;

  beforeAll(async () => {
    if (!existsSync(path.join(ROOT, 'dist', 'bundle', 'main.js'))) throw new Error('dist/ is not built: run `npm run build`');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-built-'));
    server = await serveProcess(embeddedEnv(dataDir, { REDIS_URL: '' }), { built: true });
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is ready (migrations applied, the worker thread claiming) and serves its pages and assets', async () => {
    const url = server!.url;
    await waitFor(async () => (await fetch(`${url}/ready`)).status === 200, 30_000, 'GET /ready 200');
    const status = async (route: string) => (await fetch(`${url}${route}`)).status;
    const graphiqlPage = await (await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } })).text();
    const graphiqlScript = /src="(\/graphiql\/[^"]+\.js)"/.exec(graphiqlPage)?.[1];
    expect({
      console: await status('/admin/'),
      graphiql: graphiqlScript ? await status(graphiqlScript) : 'no script',
      reference: await status('/api/reference/swagger-ui-bundle.js'),
    }).toEqual({ console: 200, graphiql: 200, reference: 200 });
  });

  it("runs the CLI from the same bundle on the running server's cluster, whose token then works", async () => {
    const env = embeddedEnv(dataDir, { LOG_LEVEL: 'warn' });
    const { stdout } = await run(process.execPath, [BIN, 'token', 'create', '--name', 'built-erp', '--role', 'erp'], { env });
    const token = /sgw_[A-Za-z0-9_-]{43}/.exec(stdout)?.[0];
    expect(token).toBeDefined();
    const push = await fetch(`${server!.url}/api/v1/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ products: [{ external_id: 'built-1', name: 'from the bundle' }] }),
    });
    expect(push.status).toBe(200);
  });

  it('stops on SIGTERM with its cluster', async () => {
    const exited = new Promise<number | null>((resolve) => server!.child.once('exit', (code) => resolve(code)));
    server!.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await runningClusterUrl(dataDir)).toBeUndefined();
  });
});
