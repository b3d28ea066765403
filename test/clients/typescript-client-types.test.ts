import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../support/process';

/** The client's types are generated from openapi.json and committed: regenerate them after a contract change. */
it('clients/typescript/src/openapi.ts is generated from the committed openapi.json (run `npm run generate` in clients/typescript)', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'sgw-client-types-'));
  try {
    const fresh = path.join(dir, 'openapi.ts');
    const cli = path.join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
    await promisify(execFile)(process.execPath, [cli, path.join(ROOT, 'openapi.json'), '--output', fresh], { cwd: ROOT });
    expect(await readFile(path.join(ROOT, 'clients', 'typescript', 'src', 'openapi.ts'), 'utf8')).toBe(await readFile(fresh, 'utf8'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
