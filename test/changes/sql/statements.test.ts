import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Issue 34: statements are tagged `sql` templates (src/changes/sql/sql.ts); no statement is built
 * as a string and run unsafe, and text enters SQL only through the quoting helpers there.
 */

const SRC = path.join(__dirname, '..', '..', '..', 'src');
const QUOTING = path.join(SRC, 'changes', 'sql', 'sql.ts');

function sourceFiles(dir: string): string[] {
  if (dir === path.join(SRC, 'generated')) return [];
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return name.endsWith('.ts') ? [file] : [];
  });
}

const relative = (file: string) => path.relative(SRC, file);

describe("the service's SQL", () => {
  const files = sourceFiles(SRC).map((file) => ({ file, text: readFileSync(file, 'utf8') }));

  it('is never run through the unsafe raw-query methods', () => {
    const unsafe = files.filter(({ text }) => /\$(query|execute)RawUnsafe/.test(text)).map(({ file }) => relative(file));
    expect(unsafe).toEqual([]);
  });

  it('takes raw text only in the quoting helpers', () => {
    const raw = files
      .filter(
        ({ file, text }) =>
          file !== QUOTING && (/\bPrisma\.raw\(/.test(text) || /import\s*{[^}]*\braw\b[^}]*}\s*from\s*'@prisma\//.test(text)),
      )
      .map(({ file }) => relative(file));
    expect(raw).toEqual([]);
  });
});
