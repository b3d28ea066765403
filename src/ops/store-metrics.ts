import { Gauge, type Registry } from 'prom-client';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Gauges of the embedded cluster's footprint on disk, read when scraped. On a PostgreSQL server of
 * your own its exporters report these; autovacuum and the checkpointer keep them bounded.
 */
export function addStoreSizeGauges(registry: Registry, clusterDir: string): void {
  new Gauge({
    name: 'sync_gateway_embedded_data_dir_bytes',
    help: 'Size of the embedded PostgreSQL cluster (DATA_DIR/postgres, WAL included), in bytes.',
    registers: [registry],
    async collect() {
      this.set(await directoryBytes(clusterDir));
    },
  });
  new Gauge({
    name: 'sync_gateway_embedded_wal_bytes',
    help: 'Size of the embedded cluster’s write-ahead log (DATA_DIR/postgres/pg_wal), in bytes.',
    registers: [registry],
    async collect() {
      this.set(await directoryBytes(walDirectory(clusterDir)));
    },
  });
}

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
