import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

/**
 * `npm install --omit=dev && npm start` works in a release package because it ships the compiled
 * output (ADR 0023): what `npm pack` would put in it, without running the build.
 */
it('a release package ships the compiled server, the console, the migrations and the CLI, and no sources', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [pack] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
  const files = pack!.files.map((f) => f.path);
  for (const needed of [
    'package.json',
    'bin/sync-gateway.js',
    'dist/cli/main.js',
    'dist/bundle/main.js',
    'dist/bundle/worker-thread.entry.js',
    'dist/bundle/migrate-thread.entry.js',
    'dist/db/embedded-postgres.js',
    'dist/backups/pglite-import.js',
    'dist/console/index.html',
    'prisma/schema.prisma',
    'scripts/prepare.js',
    'deploy/sync-gateway.service',
  ])
    expect(files).toContain(needed);
  expect(files.some((f) => /^prisma\/migrations\/\d{14}_init\/migration\.sql$/.test(f))).toBe(true);
  expect(files.filter((f) => /^(src|test|bench|node_modules)\//.test(f))).toEqual([]);
});
