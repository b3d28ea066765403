/**
 * Applies migrations to PostgreSQL from a short-lived thread: the WebAssembly schema engine's
 * memory goes away with the thread instead of staying resident in the server for its lifetime.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { migratePostgres } from './migrations';

migratePostgres((workerData as { databaseUrl: string }).databaseUrl).then(
  (applied) => parentPort!.postMessage({ applied }),
  (error: unknown) => parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) }),
);
