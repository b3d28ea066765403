import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/** Bytes of the files under `dir`, recursively (0 for a missing directory). */
export async function directoryBytes(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(full);
    // A file the store removes between listing and stat (a recycled WAL segment) counts as gone.
    else if (entry.isFile())
      total += await stat(full).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}

export const walDirectory = (pgDir: string) => path.join(pgDir, 'pg_wal');
