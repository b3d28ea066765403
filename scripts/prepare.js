'use strict';
// npm runs `prepare` after `npm install` / `npm ci` in a checkout, and before `npm pack`: it builds
// the service (Prisma client, TypeScript, admin console) into dist/. A release package made by
// `npm pack` ships dist/ and no src/, so there is nothing to do there (ADR 0023).
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');

if (!existsSync(path.join(root, 'src'))) process.exit(0);
// vite is a dev dependency only (typescript and prisma also arrive as optional peers of
// @prisma/client with --omit=dev, so they prove nothing).
try {
  require.resolve('vite/package.json', { paths: [root] });
} catch {
  console.warn(
    'sync-gateway: dev dependencies are omitted, so this checkout is not built. Build it with a full `npm install`, ' +
      'or install a release package (`npm pack` in a built checkout), which ships dist/.',
  );
  process.exit(0);
}
const npm = process.env.npm_execpath;
for (const script of ['generate', 'build', 'build:console']) {
  if (npm) execFileSync(process.execPath, [npm, 'run', '-s', script], { cwd: root, stdio: 'inherit' });
  else execFileSync('npm', ['run', '-s', script], { cwd: root, stdio: 'inherit' });
}
