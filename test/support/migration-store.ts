/**
 * A bare store (no Prisma, no migrator) for migration tests: run the migrations before one by
 * hand, write rows as the old schema allowed, then run the migration under test.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { MIGRATIONS_DIR } from '../../src/db/migrator';
import type { Backend } from '../../src/db/store';
import { createPostgresDatabase } from './database';

export type MigrationStore = {
  exec(sql: string): Promise<unknown>;
  rows(sql: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
};

export const migrationSql = (name: string): string => readFileSync(path.join(MIGRATIONS_DIR, name, 'migration.sql'), 'utf8');

/** The migrations that come before `name`, in order. */
export const migrationsBefore = (name: string): string[] =>
  readdirSync(MIGRATIONS_DIR)
    .filter((d) => /^\d{14}_/.test(d) && d < name)
    .sort();

export async function openMigrationStore(backend: string): Promise<MigrationStore> {
  // Empty: the migrations before the one under test are run by hand.
  const database = await createPostgresDatabase(backend as Backend, { migrated: false });
  const client = new Client({ connectionString: database.url });
  await client.connect();
  return {
    exec: (sql) => client.query(sql),
    rows: async (sql) => (await client.query(sql)).rows as Array<Record<string, unknown>>,
    close: async () => {
      await client.end();
      await database.drop();
    },
  };
}

/**
 * Runs `body` on a fresh store holding every migration before `migration` (not that one), and
 * closes the store afterwards, whatever `body` does.
 */
export async function withStoreBefore(backend: string, migration: string, body: (store: MigrationStore) => Promise<void>): Promise<void> {
  const store = await openMigrationStore(backend);
  try {
    for (const name of migrationsBefore(migration)) await store.exec(migrationSql(name));
    await body(store);
  } finally {
    await store.close();
  }
}
