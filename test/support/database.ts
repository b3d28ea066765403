import { randomBytes } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { Client, Pool } from 'pg';
import { applyMigrations } from '../../src/db/migrator';
import { migratePostgres, type Backend } from '../../src/db/database';
import { startEmbeddedThread, type EmbeddedThread } from '../../src/db/embedded-thread';
import { attachPool } from '../../src/db/pg-transaction';
import { DEFAULT_PUSH_CHUNK_RECORDS, setPushChunkRecords } from '../../src/changes/push-chunks';
import { PrismaClient } from '../../src/generated/prisma/client';

export type TestDatabase = {
  backend: Backend;
  prisma: PrismaClient;
  /** Connection string of this test's own PostgreSQL database (postgresql only). */
  url?: string;
  /** The pool beneath Prisma's adapter (postgresql only), as `Database.sql`. */
  sql?: Pool;
  /** The embedded store's thread beneath Prisma's adapter (pglite only). */
  embedded?: EmbeddedThread;
  /** SQL statements the Prisma client has sent so far (for N+1 checks). */
  queryCount(): number;
  /** Applies pending migrations again; returns the names applied. */
  migrate(): Promise<string[]>;
  close(): Promise<void>;
};

/** PGlite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export const backends: Backend[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgresql'] : ['pglite'];

/** A migrated, empty database of its own for one test file. */
export async function openTestDatabase(backend: Backend): Promise<TestDatabase> {
  return backend === 'pglite' ? openPglite() : openPostgres();
}

/** In memory, on its own thread behind the proxy, as the server runs it (ADR 0032). */
async function openPglite(): Promise<TestDatabase> {
  const pglite = await startEmbeddedThread({});
  const adapter = pglite.adapter;
  await applyMigrations(adapter);
  const { prisma, queryCount } = countingClient(adapter);
  // As the server opens it: large pushes commit in chunks (ADR 0040).
  setPushChunkRecords(prisma, DEFAULT_PUSH_CHUNK_RECORDS);
  return {
    backend: 'pglite',
    prisma,
    embedded: pglite,
    queryCount,
    migrate: () => applyMigrations(adapter),
    async close() {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}

/** A fresh database per test file on the server TEST_DATABASE_URL points at, dropped afterwards. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const name = `sgw_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

async function openPostgres(): Promise<TestDatabase> {
  const database = await createPostgresDatabase();
  await migratePostgres(database.url);
  const sql = new Pool({ connectionString: database.url });
  // pool.end() resolves before its sockets close; the forced DROP may then terminate one (57P01).
  sql.on('error', () => undefined);
  const { prisma, queryCount } = countingClient(new PrismaPg(sql));
  // As the server opens PostgreSQL: pushes run their transactions on the pool directly.
  attachPool(prisma, sql);
  return {
    backend: 'postgresql',
    prisma,
    sql,
    queryCount,
    url: database.url,
    migrate: () => migratePostgres(database.url),
    async close() {
      await prisma.$disconnect();
      await sql.end();
      await database.drop();
    },
  };
}

function countingClient(adapter: SqlDriverAdapterFactory) {
  const prisma = new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] });
  let count = 0;
  prisma.$on('query', () => {
    count++;
  });
  return { prisma: prisma as unknown as PrismaClient, queryCount: () => count };
}
