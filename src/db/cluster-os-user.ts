import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Logger } from 'pino';

const run = promisify(execFile);

/** The OS account the embedded cluster runs as when the service runs as root. */
const CLUSTER_OS_USER = 'sgw-postgres';

export type OsUser = { name: string; uid: number; gid: number };

/**
 * PostgreSQL refuses to run as root. A service started as root (a bare VM, a container without
 * USER) runs its cluster as a system account of its own, `sgw-postgres`, created on the first start
 * (as a package's postinstall would); a service started as any other user runs the cluster as
 * itself (undefined here), which is the Dockerfile's case.
 */
export async function clusterOsUser(logger: Logger): Promise<OsUser | undefined> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const name = CLUSTER_OS_USER;
  const existing = await lookUp(name);
  if (existing) return existing;
  try {
    await run('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      name,
    ]);
  } catch (error) {
    // Two processes starting at once: the other one made it.
    const raced = await lookUp(name);
    if (raced) return raced;
    throw new Error(
      `the service runs as root and PostgreSQL may not: creating the system user ${name} failed (${(error as Error).message.trim()}). ` +
        'Run the service as an unprivileged user, or create that user yourself.',
      { cause: error },
    );
  }
  logger.info({ user: name }, 'created the system user the embedded PostgreSQL runs as');
  const created = await lookUp(name);
  if (!created) throw new Error(`useradd reported success but ${name} does not exist`);
  return created;
}

async function lookUp(name: string): Promise<OsUser | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}
