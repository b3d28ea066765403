import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
/** Named in dist/ but loaded only when the service runs from its TypeScript sources (src/threads.ts). */
const SOURCES_ONLY = ['tsx'];

type Lock = { packages: Record<string, { dev?: boolean }> };

/** The shrinkwrap `npm pack` ships, written by its prepack script into a scratch file. */
function releaseShrinkwrap(): Lock {
  const dir = mkdtempSync(path.join(tmpdir(), 'sgw-shrinkwrap-'));
  try {
    const file = path.join(dir, 'npm-shrinkwrap.json');
    execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'release-shrinkwrap.js'), file], { stdio: 'ignore' });
    return JSON.parse(readFileSync(file, 'utf8')) as Lock;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every package the compiled service names in a require() or import(), by package name. */
function packagesNamedByDist(): Set<string> {
  const names = new Set<string>();
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      // dist/bundle joins these modules with their packages: what it still requires, they name.
      if (entry.isDirectory() && entry.name !== 'console' && entry.name !== 'bundle') visit(file);
      else if (entry.name.endsWith('.js')) {
        for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:require|import)\(["']([^"'./][^"']*)["']\)/g)) {
          const parts = specifier!.split('/');
          const name = specifier!.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
          if (!name.startsWith('node:') && !builtinModules.includes(name) && !SOURCES_ONLY.includes(name)) names.add(name);
        }
      }
    }
  };
  visit(path.join(ROOT, 'dist'));
  return names;
}

describe('the release shrinkwrap (issue 34: the install phones no one)', () => {
  const shrinkwrap = releaseShrinkwrap();
  const listed = (name: string) => Boolean(shrinkwrap.packages[`node_modules/${name}`]);

  it('holds every package the compiled service loads', () => {
    const named = [...packagesNamedByDist()];
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((name) => !listed(name))).toEqual([]);
  });

  it('leaves out the Prisma CLI (its engines download at install) and the other dev tools', () => {
    for (const tool of ['prisma', '@prisma/engines', '@prisma/fetch-engine', 'typescript', 'jest', 'vite'])
      expect({ tool, listed: listed(tool) }).toEqual({ tool, listed: false });
    expect(Object.values(shrinkwrap.packages).filter((entry) => entry.dev)).toEqual([]);
  });

  it('packs a manifest without dev dependencies and opts out of install analytics (Scarf, through swagger-ui-dist)', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      'clean-package'?: { remove?: string[] };
      scarfSettings?: { enabled?: boolean };
    };
    expect(manifest.scripts.prepack).toContain('clean-package');
    expect(manifest['clean-package']?.remove).toContain('devDependencies');
    expect(manifest.scarfSettings?.enabled).toBe(false);
  });
});
