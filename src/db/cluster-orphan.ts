import { readFile, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/**
 * The postmaster a killed service left running in its DATA_DIR (found through postmaster.pid), and
 * whether the next start may use it as it is (src/db/embedded-postgres.ts).
 */

export type Postmaster = { pid: number; socketDir: string };

/** The postmaster postmaster.pid names, whether or not it still runs. */
export async function readPostmasterPid(pgDir: string): Promise<Postmaster | undefined> {
  const text = await readFile(path.join(pgDir, 'postmaster.pid'), 'utf8').catch(() => undefined);
  // Lines: pid, data directory, start time, port, socket directory, listen address, shmem key, status.
  const lines = text?.split('\n');
  const pid = Number(lines?.[0]);
  if (!lines || !Number.isInteger(pid) || pid <= 0) return undefined;
  return { pid, socketDir: lines[4] ?? pgDir };
}

/**
 * A postmaster left by a service that was killed. A postmaster.pid naming a process that is gone,
 * or one that is not PostgreSQL (a PID reused after a reboot), is left to PostgreSQL, which
 * replaces it.
 */
export async function findOrphan(pgDir: string): Promise<Postmaster | undefined> {
  const orphan = await readPostmasterPid(pgDir);
  return orphan && isAlive(orphan.pid) && (await isPostgres(orphan.pid)) ? orphan : undefined;
}

/**
 * Whether the orphan can serve this start as it is, with no stop and no start (a fast shutdown's
 * checkpoint under load and a start: 0.6–2 s of a restart, bench/RESULTS.md): it runs this build's
 * `postgres` binary and was started with the settings this start would write (`settings`, the file
 * it would write, against the file it was started with). Otherwise it is stopped and started
 * afresh, so that the settings always come from this build. Linux only (/proc names the binary).
 */
export async function orphanMatches(orphan: Postmaster, settingsFile: string, settings: string, postgresBinary: string): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  const [running, ours, written] = await Promise.all([
    readlink(`/proc/${orphan.pid}/exe`).catch(() => undefined),
    realpath(postgresBinary).catch(() => undefined),
    readFile(settingsFile, 'utf8').catch(() => undefined),
  ]);
  return running !== undefined && running === ours && written === settings;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function isPostgres(pid: number): Promise<boolean> {
  if (process.platform !== 'linux') return true;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.split('\0')[0]?.endsWith('postgres') ?? false;
}
