import { randomBytes } from 'node:crypto';
import { mkdir, rename, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import lockfile from 'proper-lockfile';
import { currentHolder, holderIsGone, lockIdentity, removeHolder, writeHolder, type LockHolder } from './lock-holder';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    holder?: LockHolder | null | undefined,
  ) {
    super(
      `The data directory ${dataDir} is in use by another sync-gateway process (a running server or CLI)` +
        (holder ? `, pid ${holder.pid} on ${holder.hostname}` : '') +
        '. Stop it first, or point DATA_DIR elsewhere. A lock left by a process that died on this host is ' +
        'taken over at once; one left by another host expires 20 seconds after its last refresh.',
    );
    this.name = 'DataDirLockedError';
  }
}

const STALE_MS = 20_000;

/**
 * One service runs the embedded cluster of a DATA_DIR: a second one would take the first one's
 * live postmaster for an orphan and stop it (src/db/embedded-postgres.ts). The lock is refreshed while held, so a lock of a crashed holder elsewhere goes stale; a holder
 * recorded on this host that is gone (see lock-holder.ts) gives the lock up at once.
 */
export async function lockDataDir(dataDir: string, onCompromised: (error: Error) => void, logger?: Logger): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'sync-gateway.lock');
  const lock = () => lockfile.lock(dataDir, { lockfilePath: lockPath, stale: STALE_MS, update: 5_000, realpath: false, onCompromised });
  let release: () => Promise<void>;
  try {
    release = await lock();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    const holder = await currentHolder(lockPath);
    if (!holder || !holderIsGone(holder) || !(await discardLock(lockPath, holder))) throw new DataDirLockedError(dataDir, holder);
    logger?.warn(
      { holder: { pid: holder.pid, hostname: holder.hostname } },
      'the data directory lock was left by a process that is gone; taking it over',
    );
    try {
      release = await lock();
    } catch (again) {
      // Another process started at the same moment and took it first.
      if ((again as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirLockedError(dataDir, await currentHolder(lockPath));
      throw again;
    }
  }
  try {
    await writeHolder(lockPath);
  } catch (error) {
    await release();
    throw error;
  }
  return async () => {
    await removeHolder(lockPath);
    await release();
  };
}

/**
 * Moves the dead holder's lock directory aside (one atomic rename) and removes it. Should another
 * starter have replaced it in between, the moved directory is not the dead holder's: it goes back.
 */
async function discardLock(lockPath: string, holder: LockHolder): Promise<boolean> {
  const aside = `${lockPath}.gone-${randomBytes(4).toString('hex')}`;
  try {
    await rename(lockPath, aside);
  } catch {
    return false;
  }
  const moved = await lockIdentity(aside).catch(() => null);
  if (moved?.lockIno !== holder.lockIno || moved.lockBirthNs !== holder.lockBirthNs) {
    await rename(aside, lockPath).catch(() => undefined);
    return false;
  }
  await rmdir(aside);
  return true;
}
