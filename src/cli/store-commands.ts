import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig, type AppConfig } from '../config';
import { restoreEmbeddedStore } from '../db/backup';
import { openDatabase, type Database } from '../db/database';
import { exportToPostgres } from '../db/export-to-postgres';
import { backupOperation } from '../control/operations/store.operations';
import { createLogger } from '../logger';
import { runCommand } from './run-command';

/**
 * backup, restore and export of the embedded store (docs/adr/0026-backup-restore-and-export.md).
 * backup runs in the running server when there is one (the control channel, src/control/), on
 * the stopped store otherwise; restore and export need the store stopped.
 */
export function registerStoreCommands(program: Command): void {
  program
    .command('backup')
    .argument('<file>', 'where to write the backup (a .tar.gz); <file>.sha256 is written beside it')
    .description('take a consistent backup of the embedded store (DATA_DIR), with a checksum')
    .action(async (file: string) => {
      const { config } = commandContext();
      if (config.databaseUrl) throw onPostgres('backup');
      // Through the running server when there is one, in this process on a stopped store.
      const result = await runCommand(backupOperation, { file: path.resolve(file) });
      console.log(`backup written: ${result.file} (${result.bytes} bytes, sha256 ${result.sha256})`);
      console.log('Webhook secrets in it are encrypted: keep ENCRYPTION_KEY (or DATA_DIR/encryption.key) too, apart from the backup.');
    });

  program
    .command('restore')
    .argument('<file>', 'a backup written by sync-gateway backup')
    .description('restore a backup into DATA_DIR; refuses a running store, and an existing one unless --replace')
    .option('--replace', 'move an existing stopped store aside (DATA_DIR/pglite.replaced-<time>) and restore in its place')
    .option('--skip-checksum', 'restore even without a matching <file>.sha256')
    .action(async (file: string, opts: { replace?: boolean; skipChecksum?: boolean }) => {
      const { config, logger } = commandContext();
      if (config.databaseUrl) throw new Error('restore is for the embedded store; on PostgreSQL use pg_restore (docs/operations.md)');
      const { movedAside } = await restoreEmbeddedStore({ dataDir: config.dataDir, file, logger, ...opts });
      if (movedAside) console.log(`the store that was there is kept in ${movedAside}`);
      console.log(`restored ${file} into ${config.dataDir}; start the server as usual`);
    });

  program
    .command('export')
    .requiredOption('--to <url>', 'an empty PostgreSQL database, postgresql://user:password@host:5432/name')
    .description('copy the embedded store into an empty PostgreSQL database, then switch with DATABASE_URL')
    .action((opts: { to: string }) =>
      withEmbeddedStore('export', async (db, config) => {
        if (!/^postgres(ql)?:\/\//.test(opts.to)) throw new Error('--to must be a postgresql:// connection string');
        await db.migrate();
        const tables = await exportToPostgres(db, opts.to);
        console.table(tables);
        console.log(`copied ${tables.reduce((sum, t) => sum + t.rows, 0)} rows into ${new URL(opts.to).host}${new URL(opts.to).pathname}.`);
        console.log(
          config.encryptionKey
            ? 'Start with DATABASE_URL set to that database and the same ENCRYPTION_KEY.'
            : `Start with DATABASE_URL set to that database and ENCRYPTION_KEY set to the key in ${config.dataDir}/encryption.key (webhook secrets are encrypted with it).`,
        );
      }),
    );
}

const onPostgres = (command: string) =>
  new Error(`${command} works on the embedded store; with DATABASE_URL use pg_dump / pg_restore (docs/operations.md, "Backups")`);

function commandContext() {
  const config = loadConfig();
  return { config, logger: createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel }, 2) };
}

async function withEmbeddedStore(command: string, fn: (db: Database, config: AppConfig) => Promise<void>): Promise<void> {
  const { config, logger } = commandContext();
  if (config.databaseUrl) throw onPostgres(command);
  const db = await openDatabase({ dataDir: config.dataDir, embeddedFsync: config.embeddedFsync, logger });
  try {
    await fn(db, config);
  } finally {
    await db.close();
  }
}
