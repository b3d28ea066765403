import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';

export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `The data directory ${dataDir} is in use by another sync-gateway process (a running server or CLI). ` +
        'Stop it first, or point DATA_DIR elsewhere. A lock left by a crashed process expires within 20 seconds.',
    );
    this.name = 'DataDirLockedError';
  }
}

/**
 * PGlite is one Postgres instance inside this process; two processes on one directory corrupt it.
 * The lock is refreshed while held, so a crashed holder's lock goes stale instead of blocking forever.
 */
export async function lockDataDir(
  dataDir: string,
  onCompromised: (error: Error) => void,
): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  try {
    return await lockfile.lock(dataDir, {
      lockfilePath: path.join(dataDir, 'sync-gateway.lock'),
      stale: 20_000,
      update: 5_000,
      realpath: false,
      onCompromised,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirLockedError(dataDir);
    throw error;
  }
}
