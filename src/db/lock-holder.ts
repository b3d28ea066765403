import { readFileSync } from 'node:fs';
import { readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';

/**
 * Who holds the data-directory lock, written next to it. A PID alone is not an identity: PIDs
 * are reused, and start over after a reboot. Linux's boot id and the process's start time (in
 * clock ticks since boot) make {host, boot, pid, start} name one process; `lockIno` and
 * `lockBirthNs` tie the record to the one lock directory it describes, so a record left by an
 * earlier holder is never mistaken for the current one's.
 */
export type LockHolder = {
  pid: number;
  hostname: string;
  bootId: string | null;
  startTicks: string | null;
  lockIno: string;
  lockBirthNs: string;
};

export function holderFile(lockPath: string): string {
  return `${lockPath}.holder.json`;
}

/** Inode and birth time of the lock directory: they change whenever it is made anew. */
export async function lockIdentity(lockPath: string): Promise<{ lockIno: string; lockBirthNs: string }> {
  const s = await stat(lockPath, { bigint: true });
  return { lockIno: s.ino.toString(), lockBirthNs: s.birthtimeNs.toString() };
}

export async function writeHolder(lockPath: string): Promise<void> {
  const holder: LockHolder = {
    pid: process.pid,
    hostname: os.hostname(),
    bootId: bootId(),
    startTicks: startTicks(process.pid),
    ...(await lockIdentity(lockPath)),
  };
  const tmp = `${holderFile(lockPath)}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(holder));
  await rename(tmp, holderFile(lockPath));
}

export async function removeHolder(lockPath: string): Promise<void> {
  await unlink(holderFile(lockPath)).catch(() => undefined);
}

/** The recorded holder of the lock directory as it is now; null when no record describes it. */
export async function currentHolder(lockPath: string): Promise<LockHolder | null> {
  try {
    const holder = JSON.parse(await readFile(holderFile(lockPath), 'utf8')) as LockHolder;
    const now = await lockIdentity(lockPath);
    return holder.lockIno === now.lockIno && holder.lockBirthNs === now.lockBirthNs ? holder : null;
  } catch {
    return null;
  }
}

/** Whether the holder is known to be gone: only ever true for a process of this host. */
export function holderIsGone(holder: LockHolder): boolean {
  if (holder.hostname !== os.hostname()) return false;
  const ourBoot = bootId();
  if (holder.bootId && ourBoot && holder.bootId !== ourBoot) return true;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the PID is alive under another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const ticks = startTicks(holder.pid);
  return holder.startTicks !== null && ticks !== null && ticks !== holder.startTicks;
}

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses). */
export function startTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}
