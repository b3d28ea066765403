import { randomBytes } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { Client, Pool } from 'pg';
import type { Backend, Store } from '../../src/db/store';
import { migratePostgres } from '../../src/db/migrations';
import { PrismaClient } from '../../src/generated/prisma/client';
import type { SecretBox } from '../../src/deliveries/secret-box';
import { createWebhook } from '../../src/webhooks/webhook.service';
import { databaseUrl } from './global-setup';

export type TestDatabase = {
  backend: Backend;
  prisma: PrismaClient;
  /** Connection string of this test's own database. */
  url: string;
  /** The pool beneath Prisma's adapter, as `Store.sql`. */
  sql: Pool;
  /** SQL statements the Prisma client has sent so far (for N+1 checks). */
  queryCount(): number;
  /** Applies pending migrations again; returns the names applied. */
  migrate(): Promise<string[]>;
  close(): Promise<void>;
};

/** A store the test opened itself, as the fixtures take a database (no query counting). */
export function asTestDatabase(db: Store): TestDatabase {
  return { backend: db.backend, prisma: db.prisma, sql: db.sql, url: db.url, queryCount: () => 0, migrate: db.migrate, close: db.close };
}

/** The embedded cluster always; the machine's PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export const backends: Backend[] = process.env.TEST_DATABASE_URL ? ['embedded', 'postgresql'] : ['embedded'];

/**
 * For suites about the request path rather than the store (fuzzing, hostile input, HTTP
 * conventions): one provider is enough now that both run the same engine, so they run once.
 */
export const httpBackends: Backend[] = ['embedded'];

/** The server `backend` names for this run (test/support/global-setup.ts). */
function serverOf(backend: Backend): { url: string; template: string | undefined } {
  const url = backend === 'embedded' ? process.env.TEST_EMBEDDED_URL : process.env.TEST_DATABASE_URL;
  if (!url)
    throw new Error(`no ${backend} server for this test run (jest's globalSetup sets TEST_EMBEDDED_URL; CI sets TEST_DATABASE_URL)`);
  return { url, template: backend === 'embedded' ? process.env.TEST_EMBEDDED_TEMPLATE : process.env.TEST_POSTGRES_TEMPLATE };
}

/**
 * A database of its own for one test file on `backend`'s server, dropped afterwards: a copy of the
 * run's migrated template, or empty with `{ migrated: false }` (migration tests).
 */
export async function createPostgresDatabase(
  backend: Backend = 'postgresql',
  options: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const server = serverOf(backend);
  const name = `sgw_test_${randomBytes(6).toString('hex')}`;
  const template = options.migrated === false ? undefined : server.template;
  await onServer(server.url, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  const url = databaseUrl(server.url, name);
  if (options.migrated !== false && !template) await migratePostgres(url);
  return { url, drop: () => onServer(server.url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function onServer(serverUrl: string, statement: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      await admin.query(statement);
      return;
    } catch (error) {
      // Another worker copying the same template at this instant (55006): a moment later it is free.
      if ((error as { code?: string }).code !== '55006' || attempt >= 20) throw error;
    } finally {
      await admin.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

/** A migrated, empty database of its own for one test file, opened as the server opens its store. */
export async function openTestDatabase(backend: Backend): Promise<TestDatabase> {
  const database = await createPostgresDatabase(backend);
  const sql = new Pool({ connectionString: database.url });
  // pool.end() resolves before its sockets close; the forced DROP may then terminate one (57P01).
  sql.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(sql), log: [{ emit: 'event', level: 'query' }] });
  let count = 0;
  prisma.$on('query', () => {
    count++;
  });
  return {
    backend,
    prisma,
    sql,
    url: database.url,
    queryCount: () => count,
    migrate: () => migratePostgres(database.url),
    async close() {
      await prisma.$disconnect();
      await sql.end();
      await database.drop();
    },
  };
}

/**
 * A login role with a CONNECTION LIMIT on `databaseUrl`'s database, allowed to use its tables (a
 * superuser ignores limits, so "the database is full" needs a role of its own). Its connection
 * string, and a drop of the role.
 */
export async function createLimitedRole(databaseUrlOf: string, limit: number): Promise<{ url: string; drop(): Promise<void> }> {
  const role = `sgw_limited_${randomBytes(4).toString('hex')}`;
  // The embedded cluster asks every role for a password (scram-sha-256).
  const password = randomBytes(12).toString('hex');
  const name = new URL(databaseUrlOf).pathname.slice(1);
  const admin = new Client({ connectionString: databaseUrlOf });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}' CONNECTION LIMIT ${limit}`);
    await admin.query(`GRANT CONNECT ON DATABASE ${name} TO ${role}`);
    await admin.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
    await admin.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}`);
    await admin.query(`GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrlOf);
  url.username = role;
  url.password = password;
  return { url: url.toString(), drop: () => onServer(databaseUrl(databaseUrlOf, 'postgres'), `DROP ROLE IF EXISTS ${role}`) };
}

/**
 * A webhook configuration for product events to a port nothing answers on (9, discard), for tests
 * that never send: its loopback address must be allowed (setWebhookNetworks) when it is made.
 */
export function createIdleWebhook(
  prisma: PrismaClient,
  secrets: SecretBox,
  options: { direction?: 'to_erp' | 'to_webshop'; secret?: string } = {},
): Promise<{ id: number }> {
  return createWebhook(prisma, secrets, {
    url: 'http://127.0.0.1:9/hook',
    entityType: 'product',
    direction: options.direction ?? 'to_erp',
    secret: options.secret ?? 'a-secret-of-16-chars',
  });
}

/**
 * A clean slate for a delivery test: no queue item (their attempt logs go with them), no failure
 * and no webhook configuration.
 */
export async function clearDeliveries(prisma: PrismaClient): Promise<void> {
  await prisma.outboundQueueItem.deleteMany();
  await prisma.syncFailure.deleteMany();
  await prisma.webhookConfig.deleteMany();
}
