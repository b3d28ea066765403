import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import newman from 'newman';
import { COLLECTION_FILE, postmanCollectionText } from '../../scripts/write-postman';
import { restRoutes } from '../../src/modules';
import { fullPath } from '../../src/routing/route-table';
import { useApiFixture } from '../support/http';
import { postgresEnv, runCli } from '../support/process';

it('postman/sync-gateway.postman_collection.json is generated from openapi.json (run `npm run postman:write`)', async () => {
  expect(await readFile(COLLECTION_FILE, 'utf8')).toBe(await postmanCollectionText());
});

/** Run by newman against a live server with a token the CLI made, as an integrator would run it. */
describe('the Postman collection under newman', () => {
  const ctx = useApiFixture('embedded');

  it('holds every route, and every request answers a status its operation documents', async () => {
    const collection = JSON.parse(await readFile(COLLECTION_FILE, 'utf8')) as {
      item: Array<{ item: Array<{ request: { method: string; url: { path: string[] } } }> }>;
    };
    const inCollection = new Set(
      collection.item.flatMap((folder) => folder.item.map((i) => `${i.request.method} /${i.request.url.path.join('/')}`)),
    );
    for (const route of restRoutes) expect(inCollection).toContain(`${route.method} ${fullPath(route)}`);

    const created = await runCli(postgresEnv(ctx.db.url), ['token', 'create', '--name', 'newman', '--role', 'admin']);
    expect(created.code).toBe(0);
    const token = created.stdout.trim().split('\n').at(-1)!;
    const summary = await promisify<newman.NewmanRunOptions, newman.NewmanRunSummary>(newman.run)({
      collection: COLLECTION_FILE,
      envVar: [
        { key: 'baseUrl', value: ctx.api.url },
        { key: 'bearerToken', value: token },
      ],
      reporters: [],
    });
    const failures = summary.run.failures.map((f) => `${f.source?.name ?? '?'}: ${f.error.message}`);
    expect(failures).toEqual([]);
    expect(summary.run.stats.requests.total).toBeGreaterThanOrEqual(restRoutes.length);
    expect(summary.run.stats.assertions.failed).toBe(0);
  });
});
