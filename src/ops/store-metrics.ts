import { Gauge, type Registry } from 'prom-client';
import type { EmbeddedStore } from '../db/database';
import { tableStats } from '../db/housekeeping';
import { directoryBytes, walDirectory } from '../db/store-size';

/**
 * Gauges of the embedded store's footprint (docs/adr/0025): what housekeeping keeps small. Read
 * when scraped; on PostgreSQL the database server's own exporters report these.
 */
export function addEmbeddedStoreGauges(registry: Registry, store: EmbeddedStore): void {
  new Gauge({
    name: 'sync_gateway_embedded_data_dir_bytes',
    help: 'Size of the embedded store (DATA_DIR/pglite, WAL included), in bytes.',
    registers: [registry],
    async collect() {
      this.set(await directoryBytes(store.pgDir));
    },
  });
  new Gauge({
    name: 'sync_gateway_embedded_wal_bytes',
    help: 'Size of the embedded store’s write-ahead log (DATA_DIR/pglite/pg_wal), in bytes.',
    registers: [registry],
    async collect() {
      this.set(await directoryBytes(walDirectory(store.pgDir)));
    },
  });
  new Gauge({
    name: 'sync_gateway_embedded_dead_tuple_ratio',
    help: 'Dead tuples over all tuples, by table of the embedded store (housekeeping vacuums a table past 10 %).',
    labelNames: ['table'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const t of await tableStats(store.pglite)) this.set({ table: t.table }, t.live + t.dead === 0 ? 0 : t.dead / (t.live + t.dead));
    },
  });
  new Gauge({
    name: 'sync_gateway_embedded_housekeeping_longest_pause_seconds',
    help: 'Longest single VACUUM, ANALYZE or CHECKPOINT of the embedded store since start, by kind (from asking PGlite to done, so any wait behind queued statements is included).',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      for (const [kind, ms] of Object.entries(store.housekeeping.longestPauseMs())) this.set({ kind }, ms / 1000);
    },
  });
  new Gauge({
    name: 'sync_gateway_embedded_recycles',
    help: 'Times the embedded store’s PGlite instance was recycled since start: its WebAssembly memory past EMBEDDED_MEMORY_CEILING_MB (ADR 0035), or quiet after work (ADR 0039).',
    registers: [registry],
    collect() {
      this.set(store.pglite.recycles().count);
    },
  });
  new Gauge({
    name: 'sync_gateway_embedded_recycle_last_pause_seconds',
    help: 'How long the last recycle of the embedded store held every call (checkpoint, close, reopen); 0 before the first.',
    registers: [registry],
    collect() {
      this.set(store.pglite.recycles().lastPauseMs / 1000);
    },
  });
}
