import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import type { Logger } from 'pino';
import { startThread } from '../threads';
import { applyMigrations, readMigrationList } from './migrator';

type Queryable = { query<R extends object>(text: string): Promise<{ rows: R[] }> };

/**
 * Whether `_prisma_migrations` already records every committed migration as applied, with the
 * same checksum (SHA-256 of migration.sql, as Prisma computes it), and nothing else: no failed or
 * unfinished row, no migration unknown to this build. Then the schema engine (WebAssembly, about
 * a second to instantiate and ~50 MB) has nothing to do and the start skips it; in any other case
 * the engine runs and decides.
 */
export async function migrationsUpToDate(db: Queryable): Promise<boolean> {
  const table = await db.query<{ exists: boolean }>("SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS exists");
  if (!table.rows[0]?.exists) return false;
  const { rows } = await db.query<{ migration_name: string; checksum: string; finished: boolean; rolled_back: boolean }>(
    'SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at IS NOT NULL AS rolled_back FROM _prisma_migrations',
  );
  const applied = new Map<string, string>();
  for (const row of rows) {
    if (row.rolled_back) continue;
    if (!row.finished || applied.has(row.migration_name)) return false;
    applied.set(row.migration_name, row.checksum);
  }
  const local = (await readMigrationList()).migrationDirectories;
  if (local.length !== applied.size) return false;
  return local.every(({ path: name, migrationFile: { content } }) => {
    if (content.tag !== 'ok') return false;
    return applied.get(name) === createHash('sha256').update(content.value, 'utf8').digest('hex');
  });
}

/**
 * Applies migrations from a short-lived thread: the WebAssembly schema engine's memory goes away
 * with the thread instead of staying resident in the server for its lifetime.
 */
export function migrateInThread(databaseUrl: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const thread = startThread(__dirname, 'migrate-thread', { databaseUrl });
    thread.once('message', (result: { applied?: string[]; error?: string }) =>
      result.error !== undefined ? reject(new Error(result.error)) : resolve(result.applied ?? []),
    );
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the migration thread exited with ${code}`)));
  });
}

/** In this thread (the migration thread, tests, tools). The engine never disposes its adapter, so the pool is ours to end. */
export async function migratePostgres(databaseUrl: string, logger?: Logger): Promise<string[]> {
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const applied = await applyMigrations(new PrismaPg(pool), (line) => logger?.debug({ engine: line }, 'schema engine'));
    if (applied.length > 0) logger?.info({ applied }, 'applied database migrations');
    return applied;
  } finally {
    await pool.end();
  }
}
