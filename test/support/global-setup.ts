/**
 * Once per `npm test` run (jest's globalSetup, in the parent process): the embedded cluster the
 * suites' databases live on, started as the service starts its own, and on each server a template
 * database migrated once. Each test file then gets `CREATE DATABASE … TEMPLATE` (milliseconds)
 * instead of running the schema engine again. The workers read where from the environment.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import pino from 'pino';
import { startEmbeddedCluster, type EmbeddedCluster } from '../../src/db/embedded-postgres';
import { migratePostgres } from '../../src/db/migrations';
import { buildForProcesses } from './process-build';

export type TestClusters = { cluster: EmbeddedCluster; dataDir: string; postgresTemplate?: string; processBuild: string };

declare global {
  var sgwTestClusters: TestClusters | undefined;
}

export default async function globalSetup(): Promise<void> {
  // The sources compiled for the processes the suites start (test/support/process-build.ts), beside the cluster's start.
  const processBuild = buildForProcesses();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-test-cluster-'));
  // Two jest workers, each with suites that run several servers and pools at once.
  const cluster = await startEmbeddedCluster({ dataDir, logger: pino({ level: 'warn' }), synchronousCommit: false, maxConnections: 200 });
  const template = `sgw_template_${randomBytes(4).toString('hex')}`;
  await createMigratedTemplate(cluster.url, template);
  process.env.TEST_EMBEDDED_URL = cluster.url;
  process.env.TEST_EMBEDDED_TEMPLATE = template;
  process.env.TEST_PROCESS_BUILD = await processBuild;
  const clusters: TestClusters = { cluster, dataDir, processBuild: process.env.TEST_PROCESS_BUILD };
  if (process.env.TEST_DATABASE_URL) {
    clusters.postgresTemplate = template;
    await createMigratedTemplate(process.env.TEST_DATABASE_URL, template);
    process.env.TEST_POSTGRES_TEMPLATE = template;
  }
  globalThis.sgwTestClusters = clusters;
}

async function createMigratedTemplate(serverUrl: string, name: string): Promise<void> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  await migratePostgres(databaseUrl(serverUrl, name));
}

/** `serverUrl` with its database replaced by `name` (query parameters such as the socket host kept). */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
