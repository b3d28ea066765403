/**
 * The service compiled once per test run for the processes the suites start (`runCli`,
 * `serveProcess` in test/support/process.ts). Under tsx every process paid for its loader: each
 * CLI command and server start loaded the whole source tree through tsx's hooks, seconds per
 * process on two busy cores, and the suites start about a hundred. Here jest's global setup
 * transpiles src/ file by file with swc, exactly as jest transpiles it for the in-process tests
 * (the same options as jest.config.js), so the processes run the sources of this checkout, never a
 * stale dist/.
 *
 * The output is laid out as a checkout with dist/ built, so every path the service takes from
 * `__dirname` (package.json, prisma/, dist/console, the worker threads' `.js` entries) resolves as
 * in production: `<dir>/dist/**` holds the JavaScript, and `<dir>/package.json`, `<dir>/prisma`,
 * `<dir>/node_modules` and `<dir>/dist/console` point back at the checkout.
 */
import { copyFile, mkdir, mkdtemp, readdir, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { transformFile, type Options } from '@swc/core';

const ROOT = path.join(__dirname, '..', '..');
const SRC = path.join(ROOT, 'src');
/** Built by Vite into dist/console, not compiled here (tsconfig.build.json excludes it too). */
const CONSOLE_SOURCES = path.join(SRC, 'admin', 'console');

const SWC_OPTIONS: Options = {
  jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
  swcrc: false,
  configFile: false,
};

/** Compiles src/ into a new directory under the OS's temporary one, and returns that directory. */
export async function buildForProcesses(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sgw-test-build-'));
  const out = path.join(dir, 'dist');
  const sources = await typeScriptSources(SRC);
  // A few dozen files at a time: swc works on its own threads, and the other phase of the setup
  // (the cluster starting) runs beside it.
  for (let i = 0; i < sources.length; i += 32) {
    await Promise.all(
      sources.slice(i, i + 32).map(async (file) => {
        const target = path.join(out, path.relative(SRC, file)).replace(/\.ts$/, '.js');
        const { code } = await transformFile(file, { ...SWC_OPTIONS, filename: file });
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, code);
      }),
    );
  }
  // A copy, not a link: the CLI reads its version from it.
  await copyFile(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  const dirLink = process.platform === 'win32' ? 'junction' : 'dir';
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), dirLink);
  await symlink(path.join(ROOT, 'prisma'), path.join(dir, 'prisma'), dirLink);
  await symlink(path.join(ROOT, 'dist', 'console'), path.join(out, 'console'), dirLink);
  return dir;
}

async function typeScriptSources(directory: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (full !== CONSOLE_SOURCES) files.push(...(await typeScriptSources(full)));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      files.push(full);
    }
  }
  return files;
}
