import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { renderAiContext } from '../../src/rest/ai-context';
import { loadConfig } from '../../src/config';
import { restRoutes } from '../../src/modules';

const ROOT = path.join(__dirname, '..', '..');

/** Markdown the repository ships: README, CONTRIBUTING, docs/ (ADRs included) and the client's README. */
function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : [],
    );
  return [
    path.join(ROOT, 'README.md'),
    path.join(ROOT, 'CONTRIBUTING.md'),
    path.join(ROOT, 'clients', 'typescript', 'README.md'),
    ...walk(path.join(ROOT, 'docs')),
  ];
}

/**
 * The service runs on closed networks: its documents link nowhere outside the repository. Every
 * Markdown link is relative and names a file that exists; the OpenAPI document and the
 * ai-context document hold no link to another host (example payloads aside).
 */
it('every Markdown link points to a file in the repository', () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    for (const [, target] of readFileSync(file, 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (target!.startsWith('#')) continue;
      const local = target!.split('#')[0]!;
      if (/^[a-z]+:/i.test(local) || !existsSync(path.join(path.dirname(file), local)))
        broken.push(`${path.relative(ROOT, file)}: ${target}`);
    }
  }
  expect(broken).toEqual([]);
});

it('the OpenAPI document and the ai-context document link to no other host', () => {
  const openapi = JSON.parse(readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')) as {
    info: unknown;
    components: { securitySchemes: unknown };
  };
  expect(JSON.stringify([openapi.info, openapi.components.securitySchemes])).not.toMatch(/https?:\/\//);
  const aiContext = renderAiContext(restRoutes, loadConfig({}).requestBounds);
  // Hosts under example.com (RFC 2606) are example payloads' webhook URLs, which reach nothing.
  const links = (aiContext.match(/https?:\/\/[^\s)`"]+/g) ?? []).filter((url) => !/^https?:\/\/([\w-]+\.)*example\.com\//.test(url));
  expect(links).toEqual([]);
});
