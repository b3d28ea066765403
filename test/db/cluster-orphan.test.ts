import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import { readPostmasterPid } from '../../src/db/cluster-orphan';
import { clusterDirectory, startEmbeddedCluster, type EmbeddedCluster } from '../../src/db/embedded-postgres';

/**
 * A service killed with `kill -9` leaves its postmaster running. The next start uses it as it is
 * when it runs this build's binary with this build's settings, and stops and starts it otherwise.
 * Here "killed" is a start whose cluster is never stopped: the postmaster runs detached from the
 * process that started it, as it does after the service dies.
 */
describe('the postmaster a killed service left running', () => {
  const logger = pino({ level: 'silent' });
  let dataDir: string;
  let last: EmbeddedCluster | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-orphan-'));
  });
  afterAll(async () => {
    await last?.stop().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  });

  const postmaster = async () => (await readPostmasterPid(clusterDirectory(dataDir)))?.pid;
  const setting = async (url: string, name: string) => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name];
    } finally {
      await client.end();
    }
  };

  it('is used as it is with the same settings, and started afresh when they changed', async () => {
    const first = await startEmbeddedCluster({ dataDir, logger });
    const orphan = await postmaster();
    expect(orphan).toBeDefined();

    last = await startEmbeddedCluster({ dataDir, logger });
    expect(await postmaster()).toBe(orphan);
    expect(await setting(last.url, 'max_connections')).toBe('40');
    expect(last.url).toBe(first.url);

    last = await startEmbeddedCluster({ dataDir, logger, maxConnections: 41 });
    expect(await postmaster()).not.toBe(orphan);
    expect(await setting(last.url, 'max_connections')).toBe('41');
  }, 120_000);
});
