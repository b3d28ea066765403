/**
 * Postgres settings of the embedded store (docs/adr/0025-embedded-housekeeping-and-memory.md).
 *
 * PGlite is one single-user Postgres inside this process: no checkpointer, no autovacuum, and its
 * WebAssembly memory only ever grows. Its defaults are PostgreSQL's, sized for a server of its own
 * (128 MB of shared buffers, a 1 GB WAL ceiling). These suit one process beside the service.
 */
export const EMBEDDED_SETTINGS: Record<string, string> = {
  // Measured: the working set of the soak fits; 128 MB only made the wasm heap (which never shrinks) larger.
  shared_buffers: '32MB',
  // VACUUM's dead-tuple list; 16 MB holds ~2.8 million tuple ids, more than one housekeeping pass meets.
  maintenance_work_mem: '16MB',
  work_mem: '4MB',
  temp_buffers: '4MB',
  wal_buffers: '1MB',
  // The backend checkpoints by itself once this much WAL has been written since the last one; with
  // no checkpointer it is the only ceiling on pg_wal besides the periodic CHECKPOINT.
  max_wal_size: '48MB',
  // Segments kept for reuse after a checkpoint (each is 16 MB).
  min_wal_size: '32MB',
};

export function embeddedSettingParams(settings: Record<string, string> = EMBEDDED_SETTINGS): string[] {
  return Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
}
