import { randomBytes } from 'node:crypto';
import { mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import type { AppConfig } from './index';

/** What stops the service from starting, one line per problem, found before the database is touched. */
export class PreflightError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'PreflightError';
  }
}

type PreflightConfig = Pick<AppConfig, 'host' | 'port' | 'dataDir' | 'databaseUrl' | 'encryptionKey'>;

/**
 * The mistakes of a first start, each reported as one line before anything opens or migrates
 * the database: a missing ENCRYPTION_KEY with DATABASE_URL, a DATA_DIR that is a file or cannot
 * be written, a PORT another process holds. `listen: false` for commands that serve no HTTP.
 */
export async function preflight(config: PreflightConfig, options: { listen: boolean }): Promise<void> {
  const problems: string[] = [];
  if (config.databaseUrl && !config.encryptionKey) {
    problems.push(
      'ENCRYPTION_KEY is required with DATABASE_URL (every replica must use the same key): generate one with `openssl rand -hex 32`',
    );
  }
  if (!config.databaseUrl) {
    const dataDirProblem = await dataDirectoryProblem(config.dataDir);
    if (dataDirProblem) problems.push(dataDirProblem);
  }
  if (options.listen) {
    const portProblem = await portProblemOf(config.host, config.port);
    if (portProblem) problems.push(portProblem);
  }
  if (problems.length > 0) throw new PreflightError(problems);
}

/** Creates DATA_DIR when missing and proves it writable by writing a file (a mode check would pass for root). */
export async function dataDirectoryProblem(dataDir: string): Promise<string | undefined> {
  const existing = await stat(dataDir).catch((error: NodeJS.ErrnoException) =>
    error.code === 'ENOENT' || error.code === 'ENOTDIR' ? undefined : error,
  );
  if (existing instanceof Error)
    return `DATA_DIR ${dataDir} cannot be read (${existing.code ?? existing.message}): point DATA_DIR at a writable directory`;
  if (existing && !existing.isDirectory())
    return `DATA_DIR ${dataDir} is a file, not a directory: point DATA_DIR at a directory (it is created when missing)`;
  try {
    if (!existing) await mkdir(dataDir, { recursive: true });
    const probe = path.join(dataDir, `.write-test-${process.pid}-${randomBytes(4).toString('hex')}`);
    await writeFile(probe, '');
    await unlink(probe);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const what = existing ? 'is not writable' : 'cannot be created';
    return `DATA_DIR ${dataDir} ${what} (${code}): point DATA_DIR at a directory this user can write`;
  }
}

/** Binds the port for a moment; the server binds it again once the database is ready. */
export function portProblemOf(host: string, port: number): Promise<string | undefined> {
  if (port === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${host}:${port}`;
      if (error.code === 'EADDRINUSE')
        resolve(`PORT ${port} is already in use on ${host} (${where}): stop the other process or set PORT to a free port`);
      else if (error.code === 'EACCES') resolve(`PORT ${port} on ${host} needs privileges this user lacks: use a port above 1023`);
      else if (error.code === 'EADDRNOTAVAIL')
        resolve(`HOST ${host} is not an address of this machine: use 127.0.0.1, 0.0.0.0 or one of its interfaces`);
      else resolve(`cannot listen on ${where} (${error.code ?? error.message})`);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}
