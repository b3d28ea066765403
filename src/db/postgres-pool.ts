import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Pool, type PoolClient, type PoolConfig } from 'pg';
import type { Logger } from 'pino';
import { describeDatabaseError } from '../errors/database-errors';

export type PoolSettings = { size: number; timeoutMs: number; statementTimeoutMs: number };

/** Matches loadConfig's defaults, for callers without a configuration (tests, scripts). */
export const DEFAULT_POOL_SETTINGS: PoolSettings = { size: 10, timeoutMs: 5_000, statementTimeoutMs: 60_000 };

/**
 * Options of every pg pool of the service. `connectionTimeoutMillis` bounds both the wait for a
 * free connection and the opening of a new one (pg-pool throws "timeout exceeded when trying to
 * connect", which answers 503). `statement_timeout` stops a runaway statement on the server;
 * `query_timeout` stops waiting on a half-open connection that will never answer; TCP keep-alive
 * finds such a connection while it is idle.
 */
export function postgresPoolConfig(connectionString: string, settings: PoolSettings, applicationName: string): PoolConfig {
  const statementTimeout = settings.statementTimeoutMs > 0 ? settings.statementTimeoutMs : undefined;
  return {
    connectionString,
    max: settings.size,
    connectionTimeoutMillis: settings.timeoutMs,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: applicationName,
    ...(statementTimeout ? { statement_timeout: statementTimeout, query_timeout: statementTimeout + 5_000 } : {}),
  };
}

/** SQLSTATE 53300: the server, the database or the role has no connection slot left. */
const isServerFull = (error: unknown) => (error as { code?: unknown }).code === '53300';

type ConnectCallback = (error: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void;

/**
 * A pool whose callers wait for a connection up to `connectionTimeoutMillis`, also while the
 * *server* is full. pg-pool queues a caller only when the pool itself is at its size; below it, it
 * opens a new connection, and a server at `max_connections` (several replicas sharing it, a
 * burst) refuses that at once with 53300, which answered 503 at once. Here such a refusal is
 * retried (50 ms doubling to 500 ms) until the deadline: meanwhile this pool's busy connections
 * come back, or another replica's close. Every other error fails at once, as before.
 */
export class PatientPool extends Pool {
  override connect(): Promise<PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<PoolClient> | void {
    const connected = this.connectBefore(Date.now() + (this.options.connectionTimeoutMillis || 0));
    if (!callback) return connected;
    connected.then(
      (client) => callback(undefined, client, (release) => client.release(release as Error | boolean | undefined)),
      (error: Error) => callback(error, undefined, () => undefined),
    );
  }

  private async connectBefore(deadline: number): Promise<PoolClient> {
    for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
      try {
        return await super.connect();
      } catch (error) {
        if (!isServerFull(error) || Date.now() + delay > deadline) throw error;
        await sleep(delay);
      }
    }
  }
}

/**
 * Start-up against a database that is down, full or still starting: try to connect with backoff
 * (500 ms doubling to 10 s), one line per attempt naming host, port and cause, until it answers or
 * `timeoutMs` has passed (then the last error is thrown and the process exits).
 */
export async function waitForPostgres(connectionString: string, options: { timeoutMs: number; logger: Logger }): Promise<void> {
  const where = describeLocation(connectionString);
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const client = new Client({ connectionString, connectionTimeoutMillis: 5_000, application_name: 'sync-gateway-startup' });
    try {
      await client.connect();
      await client.query('SELECT 1');
      if (attempt > 1) options.logger.info({ ...where, attempts: attempt }, 'database reachable; starting');
      return;
    } catch (error) {
      const elapsed = Date.now() - started;
      const delay = Math.min(500 * 2 ** (attempt - 1), 10_000);
      if (elapsed + delay > options.timeoutMs) {
        options.logger.fatal(
          { ...where, cause: describeDatabaseError(error), attempts: attempt },
          'database still unreachable; giving up (DATABASE_CONNECT_TIMEOUT_MS)',
        );
        throw error;
      }
      options.logger.warn(
        { ...where, cause: describeDatabaseError(error), message: (error as Error).message, attempt, retryInMs: delay },
        `database ${where.host}:${where.port} unreachable (${describeDatabaseError(error)}); retrying`,
      );
      await new Promise((resolve) => setTimeout(resolve, delay));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/**
 * Host (or, for a Unix socket, its directory: the `host` query parameter), port and database of a
 * connection string, as pg connects: safe to log, no credentials.
 */
export function describeLocation(connectionString: string): { host: string; port: number; database: string } {
  const url = new URL(connectionString);
  const host = url.searchParams.get('host') ?? url.hostname;
  const port = Number(url.searchParams.get('port') ?? (url.port || 5432));
  return { host, port, database: url.pathname.slice(1) };
}
