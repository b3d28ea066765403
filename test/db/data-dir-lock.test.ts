import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { DataDirLockedError } from '../../src/db/data-dir-lock';
import { openDatabase } from '../../src/db/database';

describe('embedded data directory', () => {
  let dataDir: string;
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sgw-lock-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('refuses a second opener while held, and keeps the data across a restart', async () => {
    const first = await openDatabase({ dataDir, logger });
    await first.migrate();
    await first.prisma.product.create({ data: { externalId: 'KEEP' } });

    await expect(openDatabase({ dataDir, logger })).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(openDatabase({ dataDir, logger })).rejects.toThrow(/in use by another sync-gateway process/);

    await first.close();
    const second = await openDatabase({ dataDir, logger });
    try {
      expect(await second.migrate()).toEqual([]);
      expect(await second.prisma.product.findUnique({ where: { externalId: 'KEEP' } })).not.toBeNull();
    } finally {
      await second.close();
    }
  });
});
