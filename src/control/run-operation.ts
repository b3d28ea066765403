import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { AppConfig } from '../config';
import { dataDirectoryProblem, PreflightError } from '../config/preflight';
import { DataDirLockedError } from '../db/data-dir-lock';
import { openDatabase, type Database } from '../db/database';
import { parseInput } from '../errors/zod-details';
import { createEventHub } from '../events/hub';
import { createSecretBox, loadEncryptionKey, type SecretBox } from '../webhooks/secret-box';
import { callControlSocket, NoControlSocket } from './control-client';
import type { ControlContext, ControlOperation, ResultOf } from './operation';
import { controlSocketPath } from './protocol';

const RETRY_MS = 500;

/**
 * Runs an operation for the CLI. Its arguments are checked first, before anything connects or
 * opens. On PostgreSQL the CLI opens the database itself (any number of processes may). On the
 * embedded store, which one process holds, it asks the running server over its control socket,
 * or opens the store itself when no process holds it; while another process holds the store
 * without answering (a server still starting, another CLI command) it waits CLI_WAIT_FOR_SERVER_MS.
 */
export async function runOperation<Op extends ControlOperation>(
  operation: Op,
  rawArgs: unknown,
  options: { config: AppConfig; logger: Logger; onWait?: (message: string) => void },
): Promise<ResultOf<Op>> {
  const args = parseInput(operation.args, rawArgs);
  const { config, logger } = options;
  if (config.databaseUrl) return (await runInThisProcess(operation, args, config, logger)) as ResultOf<Op>;

  const socketPath = controlSocketPath(config.dataDir);
  const deadline = Date.now() + config.cliWaitForServerMs;
  let waiting = false;
  for (;;) {
    try {
      return (await callControlSocket(socketPath, operation.name, args)) as ResultOf<Op>;
    } catch (error) {
      if (!(error instanceof NoControlSocket)) throw error;
    }
    const problem = await dataDirectoryProblem(config.dataDir);
    if (problem) throw new PreflightError([problem]);
    try {
      return (await runInThisProcess(operation, args, config, logger)) as ResultOf<Op>;
    } catch (error) {
      if (!(error instanceof DataDirLockedError)) throw error;
      if (Date.now() >= deadline) throw new ServerNotAnswering(error, socketPath, config.cliWaitForServerMs);
      if (!waiting)
        options.onWait?.(
          `${config.dataDir} is in use; waiting up to ${Math.round(config.cliWaitForServerMs / 1000)} s for its server to answer…`,
        );
      waiting = true;
    }
    await sleep(RETRY_MS);
  }
}

/** The store is held by a process that does not answer on the control socket. */
export class ServerNotAnswering extends Error {
  constructor(locked: DataDirLockedError, socketPath: string, waitedMs: number) {
    super(
      `${locked.message.replace(/ Stop it first,.*$/, '')} and nothing answered on ${socketPath} within ${Math.round(waitedMs / 1000)} s. ` +
        'A server answers there once it listens; a CLI command holds the store only while it runs. ' +
        'If the holder is neither, stop it (or point DATA_DIR elsewhere).',
    );
    this.name = 'ServerNotAnswering';
  }
}

async function runInThisProcess(operation: ControlOperation, args: unknown, config: AppConfig, logger: Logger): Promise<unknown> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, embeddedFsync: config.embeddedFsync, logger });
  try {
    // The CLI works on a fresh data directory or database too.
    if (operation.migrateFirst !== false) await db.migrate();
    return await operation.run(cliContext(db, config), args);
  } finally {
    await db.close();
  }
}

function cliContext(db: Database, config: AppConfig): ControlContext {
  let secrets: Promise<SecretBox> | undefined;
  return {
    db,
    config,
    runsIn: 'cli',
    secrets: () => (secrets ??= loadEncryptionKey(config).then(createSecretBox)),
    async announceRevocation() {
      // Without Redis the serving processes on PostgreSQL drop the token within TOKEN_CACHE_TTL_MS.
      if (!config.redisUrl) return undefined;
      const events = createEventHub({ redisUrl: config.redisUrl });
      try {
        if (!(await events.whenConnected(5_000))) return 'Redis is unreachable: serving replicas drop the token within TOKEN_CACHE_TTL_MS';
        events.publishRevocation();
        return undefined;
      } finally {
        await events.close();
      }
    },
  };
}
