import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { openDatabase, type Database } from '../../src/db/database';
import type { HousekeepingOptions } from '../../src/db/housekeeping';
import type { TestDatabase } from './database';

/** An embedded store in a data directory of its own, opened as the server opens it. */
export async function openEmbeddedTestStore(
  options: { dataDir?: string; housekeeping?: HousekeepingOptions } = {},
): Promise<{ db: Database; dataDir: string; asTestDatabase(): TestDatabase; remove(): Promise<void> }> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'sgw-store-')));
  // Timers far out: the tests run housekeeping themselves, where they need it.
  const db = await openDatabase({
    dataDir,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    embeddedFsync: false,
    housekeeping: { vacuumCheckMs: 3_600_000, checkpointMs: 3_600_000, ...options.housekeeping },
  });
  await db.migrate();
  return {
    db,
    dataDir,
    asTestDatabase: () => ({ backend: db.backend, prisma: db.prisma, queryCount: () => 0, migrate: db.migrate, close: db.close }),
    remove: () => rm(dataDir, { recursive: true, force: true }),
  };
}

export function products(count: number, round: number) {
  return Array.from({ length: count }, (_, i) => ({
    external_id: `P${i}`,
    name: `Product ${i}`,
    price: 10 + (i % 7),
    description: `round ${round % 2}`,
  }));
}
