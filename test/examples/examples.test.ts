import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createToken } from '../../src/auth/token.service';
import { useApiFixture } from '../support/http';
import { ROOT } from '../support/process';

const run = promisify(execFile);

/** A Python with `requests` (examples/python uses nothing else): EXAMPLES_PYTHON, else python3 if it has it. */
function pythonWithRequests(): string | undefined {
  const candidate = process.env.EXAMPLES_PYTHON ?? 'python3';
  try {
    execFileSync(candidate, ['-c', 'import requests'], { stdio: 'ignore' });
    return candidate;
  } catch {
    return undefined;
  }
}
const python = pythonWithRequests();
// CI installs requests (.ci/run) and sets REQUIRE_EXAMPLES so that its absence fails there instead of skipping.
const itWithPython = python || process.env.REQUIRE_EXAMPLES ? it : it.skip;

/** The examples in examples/, run as a user runs them, against a live server (HTTP only: one provider). */
describe('examples', () => {
  const ctx = useApiFixture('embedded');
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let shopEnv: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sgw-examples-'));
    const erp = (await createToken(ctx.db.prisma, 'example-erp', 'erp')).token;
    const shop = (await createToken(ctx.db.prisma, 'example-shop', 'webshop')).token;
    env = { ...process.env, SGW_URL: ctx.api.url, SGW_TOKEN: erp };
    shopEnv = { ...process.env, SGW_URL: ctx.api.url, SGW_TOKEN: shop };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const pending = async () => (await ctx.api.request('GET', '/api/v1/updated-products?limit=1')).body.meta.total as number;

  it('erp-push.sh pushes a batch, and the same Idempotency-Key replays the first answer', async () => {
    const batch = path.join(dir, 'products.json');
    await writeFile(
      batch,
      JSON.stringify({
        products: [
          { external_id: 'EX-1', name: 'Cup', price: 7.5 },
          { external_id: 'EX-2', name: 'Mug' },
        ],
      }),
    );
    const first = await run(path.join(ROOT, 'examples', 'erp-push.sh'), [batch, 'example-key-1'], { env });
    expect(JSON.parse(first.stdout)).toMatchObject({ created: 2, updated: 0 });
    // The same batch again, with the same key.
    const again = await run(path.join(ROOT, 'examples', 'erp-push.sh'), [batch, 'example-key-1'], { env });
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout)); // replayed, not run twice
    expect(await ctx.db.prisma.changeHistoryEntry.count()).toBe(2);
  });

  it('webshop-loop.ts applies every pending change and acknowledges it', async () => {
    const stateDir = path.join(dir, 'ts-shop');
    const out = await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'examples', 'webshop-loop.ts'), '--once'], {
      env: { ...shopEnv, STATE_DIR: stateDir },
      cwd: ROOT,
    });
    expect(out.stdout).toMatch(/created EX-1/);
    const shop = JSON.parse(await readFile(path.join(stateDir, 'shop.json'), 'utf8'));
    expect(shop['EX-1'].data).toEqual({ name: 'Cup', price: 7.5 });
    expect(await pending()).toBe(0);
  });

  itWithPython('examples/python/webshop_loop.py does the same with requests only', async () => {
    await ctx.api.request('POST', '/api/v1/products', {
      body: {
        products: [
          { external_id: 'EX-1', price: 8 },
          { external_id: 'EX-3', name: 'Pot' },
        ],
      },
    });
    expect(await pending()).toBe(2);
    const stateDir = path.join(dir, 'py-shop');
    const out = await run(python ?? 'python3', [path.join(ROOT, 'examples', 'python', 'webshop_loop.py'), '--once'], {
      env: { ...shopEnv, STATE_DIR: stateDir },
    });
    expect(out.stdout).toMatch(/updated EX-1/);
    expect(out.stdout).toMatch(/created EX-3/);
    const shop = JSON.parse(await readFile(path.join(stateDir, 'shop.json'), 'utf8'));
    expect(shop['EX-1'].data).toEqual({ price: 8 });
    expect(await pending()).toBe(0);
  });
});
