import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');

/**
 * The console's GraphQL types come from schema.graphql through gql.tada's introspection file; this
 * is its staleness test, as `schema.graphql` has its own against the Pothos schema.
 */
it('the console’s graphql-env.d.ts is generated from schema.graphql (run `npm run schema:print` after a schema change)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sgw-console-types-'));
  try {
    const output = path.join(dir, 'graphql-env.d.ts');
    execFileSync(
      process.execPath,
      [
        path.join(root, 'node_modules', 'gql.tada', 'bin', 'cli.js'),
        'generate-output',
        '--tsconfig',
        'src/admin/console/tsconfig.json',
        '--output',
        output,
      ],
      { cwd: root, stdio: 'pipe' },
    );
    const committed = readFileSync(path.join(root, 'src', 'admin', 'console', 'src', 'graphql-env.d.ts'), 'utf8');
    expect(readFileSync(output, 'utf8')).toBe(committed);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
