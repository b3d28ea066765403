import { rm } from 'node:fs/promises';
import { Client } from 'pg';

/** Stops the run's embedded cluster and drops the template it made on the machine's PostgreSQL. */
export default async function globalTeardown(): Promise<void> {
  const clusters = globalThis.sgwTestClusters;
  if (!clusters) return;
  if (clusters.postgresTemplate && process.env.TEST_DATABASE_URL) {
    const admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${clusters.postgresTemplate} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
  await clusters.cluster.stop();
  await rm(clusters.dataDir, { recursive: true, force: true });
  await rm(clusters.processBuild, { recursive: true, force: true });
}
