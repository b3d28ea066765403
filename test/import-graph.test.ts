import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The shape of src/ (issue 34): the folders import one another without a cycle, so they stack in
 * layers with every import running down (src/modules.ts, the app and the CLI at the top; config,
 * errors and the database at the bottom), and no two files import each other, type imports
 * included. Read from the code's own imports with TypeScript's pre-processor.
 */

const SRC = path.join(__dirname, '..', 'src');
/** Generated code and the admin console (a browser app with its own build) are not the service's modules. */
const SKIPPED = [path.join(SRC, 'generated'), path.join(SRC, 'admin', 'console')];

function sourceFiles(dir: string): string[] {
  if (SKIPPED.includes(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [file] : [];
  });
}

/** The file a relative specifier names (`./x`, `./x.js`, `./dir` for its index), or undefined. */
function resolve(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier.replace(/\.js$/, ''));
  return [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((file) => existsSync(file));
}

/** file → the files of src/ it imports (static, type-only, re-exports and literal dynamic imports). */
function importGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(file, name))
      .filter((target): target is string => target !== undefined && target.startsWith(SRC) && target !== file);
    graph.set(file, new Set(targets));
  }
  return graph;
}

/** A folder of src/ (`changes`), or a top-level file as its own room (`app.ts`). */
const folderOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0]!;

/** The strongly connected groups of more than one node (Tarjan): the import cycles. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Which imports tie a group of folders together: `a -> b (file => file)`, for the failure message. */
function importsWithin(graph: Map<string, Set<string>>, folders: readonly string[]): string[] {
  return [...graph].flatMap(([file, targets]) =>
    [...targets]
      .filter((t) => folderOf(t) !== folderOf(file) && folders.includes(folderOf(file)) && folders.includes(folderOf(t)))
      .map((t) => `${folderOf(file)} -> ${folderOf(t)} (${path.relative(SRC, file)} => ${path.relative(SRC, t)})`),
  );
}

describe('the import graph of src/', () => {
  const files = importGraph();
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const from = folderOf(file);
    const into = folders.get(from) ?? new Set<string>();
    for (const target of targets) if (folderOf(target) !== from) into.add(folderOf(target));
    folders.set(from, into);
  }

  it('reads the imports it should (a check that can fail)', () => {
    expect(files.size).toBeGreaterThan(200);
    const modules = path.join(SRC, 'modules.ts');
    expect([...files.get(modules)!].map(folderOf)).toEqual(expect.arrayContaining(['products', 'graphql', 'routing']));
    // The detector finds a cycle where there is one.
    expect(
      cycles(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set(['c'])],
          ['c', new Set(['a'])],
          ['d', new Set(['a'])],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
  });

  it('has no cycle between folders: they stack in layers, every import running down', () => {
    const found = cycles(folders);
    expect(found.map((group) => ({ folders: group, imports: importsWithin(files, group) }))).toEqual([]);
  });

  it('has no two files importing each other, type imports included', () => {
    expect(cycles(files).map((group) => group.map((file) => path.relative(SRC, file)))).toEqual([]);
  });
});
