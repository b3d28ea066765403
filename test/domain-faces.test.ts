import path from 'node:path';
import { ESLint } from 'eslint';

/**
 * Domain public faces (issue 34, ADR 0048): outside a domain's folder, only its face may be imported
 * (its *.service.ts, *.schema.ts, … files and those eslint.config.mjs lists). Probes linted with the
 * repository's own configuration, as `npm run lint` lints src/.
 */

const ROOT = path.join(__dirname, '..');
const RULE = 'import-x/no-restricted-paths';

// The boundary rule alone, without type information: a second or two instead of a typed program.
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
  ruleFilter: ({ ruleId }) => ruleId === RULE,
});

/** The boundary errors of `code` linted as if it were `file`. */
async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  expect(result!.messages.filter((m) => m.ruleId !== RULE)).toEqual([]);
  return result!.messages.map((m) => m.message);
}

describe("a domain's internals", () => {
  it.each([
    ['an import', "import { mergeFields } from '../changes/diff';\nmergeFields({}, {});\n"],
    ['a type import', "import type { LeaseBook } from '../queue/lease-book';\nexport type B = LeaseBook;\n"],
    ['a re-export', "export { createLeaseBook } from '../queue/lease-book';\n"],
    ['a dynamic import', "export const load = () => import('../queue/lease-book');\n"],
  ])('are refused to another domain: %s', async (_kind, code) => {
    expect(await boundaryErrors('src/products/probe.ts', code)).toEqual([
      expect.stringMatching(
        /^Unexpected path "\.\.\/(changes\/diff|queue\/lease-book)" imported in restricted zone\. Import src\/(changes|queue)\/ through its face/,
      ),
    ]);
  });

  it('are refused to the files at the top of src/ and to the kernels too', async () => {
    expect(await boundaryErrors('src/probe.ts', "import './queue/lease-book';\n")).toHaveLength(1);
    expect(await boundaryErrors('src/graphql/probe.ts', "import '../auth/auth-info';\n")).toHaveLength(1);
  });

  it('are open to their own folder, subfolders included', async () => {
    expect(await boundaryErrors('src/queue/probe.ts', "import './lease-book';\n")).toEqual([]);
    expect(await boundaryErrors('src/queue/sql/probe.ts', "import '../lease-book';\n")).toEqual([]);
  });
});

describe("a domain's face", () => {
  it('is its files by role and those it declares', async () => {
    const code = [
      "import { syncStocks } from '../stocks/stock.service';",
      "import { productEntity } from './product.entity';",
      "import { TRACKED_ENTITIES } from '../changes/tracked-entities';",
      "import { createWorker } from '../queue/worker';",
      "import type { QueueDatabase } from '../queue/sql/queue-database';",
      "import type { OperationalEvent } from '../events/live-events';",
      'export { syncStocks, productEntity, TRACKED_ENTITIES, createWorker, type QueueDatabase, type OperationalEvent };',
      '',
    ].join('\n');
    expect(await boundaryErrors('src/products/probe.ts', code)).toEqual([]);
  });

  it('is everything of an open folder (the ground floor, the kernels, the edges)', async () => {
    const code =
      "import { PatientPool } from '../db/postgres-pool';\nimport { builder } from '../graphql/builder';\nexport { PatientPool, builder };\n";
    expect(await boundaryErrors('src/products/probe.ts', code)).toEqual([]);
  });
});
