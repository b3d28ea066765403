import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { AppConfig } from '../config';
import { dataDirectoryProblem, PreflightError } from '../config/preflight';
import { DataDirLockedError } from '../db/data-dir-lock';
import { openStore, type Store } from '../db/store';
import { importPgliteStore } from '../backups/pglite-import';
import { parseInput } from '../validation/zod-details';
import { announceRevocation } from '../auth/revocation-notices';
import { createSecretBox, loadEncryptionKey, type SecretBox } from '../deliveries/secret-box';
import type { ControlContext, ControlOperation, ResultOf } from './operation';

const RETRY_MS = 500;

/**
 * Runs an operation for the CLI. Its arguments are checked first, before anything connects or
 * opens. The CLI opens the store itself: on PostgreSQL as any replica does; on the embedded store
 * it connects to the cluster of the server that holds DATA_DIR (over the socket in it), or starts
 * the cluster itself when no process holds it. While the holder has no cluster running yet (a
 * server still starting, another CLI command) it waits CLI_WAIT_FOR_SERVER_MS.
 */
export async function runOperation<Op extends ControlOperation>(
  operation: Op,
  rawArgs: unknown,
  options: { config: AppConfig; logger: Logger; onWait?: (message: string) => void },
): Promise<ResultOf<Op>> {
  const args = parseInput(operation.args, rawArgs);
  const { config } = options;
  const deadline = Date.now() + config.cliWaitForServerMs;
  let waiting = false;
  for (;;) {
    if (!config.databaseUrl) {
      const problem = await dataDirectoryProblem(config.dataDir);
      if (problem) throw new PreflightError([problem]);
    }
    try {
      return (await runInThisProcess(operation, args, config, options.logger)) as ResultOf<Op>;
    } catch (error) {
      if (!(error instanceof DataDirLockedError)) throw error;
      if (Date.now() >= deadline) throw new ServerNotAnswering(error, config.cliWaitForServerMs);
      if (!waiting)
        options.onWait?.(
          `${config.dataDir} is in use; waiting up to ${Math.round(config.cliWaitForServerMs / 1000)} s for its server's database to start…`,
        );
      waiting = true;
    }
    await sleep(RETRY_MS);
  }
}

/** The store is held by a process whose database does not come up. */
export class ServerNotAnswering extends Error {
  constructor(locked: DataDirLockedError, waitedMs: number) {
    super(
      `${locked.message.replace(/ Stop it first,.*$/, '')} and its database did not accept connections within ${Math.round(waitedMs / 1000)} s. ` +
        'A server starts its database before it listens; a CLI command holds the store only while it runs. ' +
        'If the holder is neither, stop it (or point DATA_DIR elsewhere).',
    );
    this.name = 'ServerNotAnswering';
  }
}

async function runInThisProcess(operation: ControlOperation, args: unknown, config: AppConfig, logger: Logger): Promise<unknown> {
  const db = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    embeddedFsync: config.embeddedFsync,
    logger,
    pool: { ...config.databasePool, size: 2 },
    attachToRunningServer: true,
    importLegacyStore: importPgliteStore,
  });
  try {
    // The CLI works on a fresh data directory or database too.
    if (operation.migrateFirst !== false) await db.migrate();
    return await operation.run(cliContext(db, config), args);
  } finally {
    await db.close();
  }
}

function cliContext(db: Store, config: AppConfig): ControlContext {
  let secrets: Promise<SecretBox> | undefined;
  return {
    db,
    config,
    secrets: () => (secrets ??= loadEncryptionKey(config).then(createSecretBox)),
    async announceRevocation() {
      // Every serving process on this database LISTENs for it (src/auth/revocation-notices.ts).
      await announceRevocation(db.sql);
      return undefined;
    },
  };
}
