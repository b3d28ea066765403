import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../config';
import { restoreStore } from '../backups/restore';
import { backupOperation, exportOperation, importPgliteOperation } from '../control/operations/store.operations';
import { createLogger } from '../logger';
import { runCommand } from './run-command';

/**
 * backup, restore, export and import-pglite (docs/adr/0026, docs/operations.md). backup and
 * export read one snapshot of the store, the running server's cluster included; restore needs
 * DATA_DIR stopped, since it replaces the store.
 */
export function registerStoreCommands(program: Command): void {
  program
    .command('backup')
    .argument('<file>', 'where to write the backup (gzipped JSON lines); <file>.sha256 is written beside it')
    .description('take a consistent backup of the store while it serves, with a checksum')
    .action(async (file: string) => {
      const result = await runCommand(backupOperation, { file: path.resolve(file) });
      console.log(
        `backup written: ${result.file} (${result.bytes} bytes, sha256 ${result.sha256}; ${result.rows} rows in ${result.tables} tables)`,
      );
      if (result.backend === 'postgresql') {
        console.log('On a large PostgreSQL server pg_dump remains the tool of choice; this file restores into an embedded store.');
      }
      console.log('Webhook secrets in it are encrypted: keep ENCRYPTION_KEY (or DATA_DIR/encryption.key) too, apart from the backup.');
    });

  program
    .command('restore')
    .argument('<file>', 'a backup written by sync-gateway backup')
    .description('restore a backup into DATA_DIR; refuses a running store, and an existing one unless --replace')
    .option('--replace', 'move an existing stopped store aside (DATA_DIR/postgres.replaced-<time>) and restore in its place')
    .option('--skip-checksum', 'restore even without a matching <file>.sha256')
    .action(async (file: string, opts: { replace?: boolean; skipChecksum?: boolean }) => {
      const config = loadConfig();
      if (config.databaseUrl) {
        throw new Error(
          'restore makes the embedded store in DATA_DIR; unset DATABASE_URL (to fill a PostgreSQL server, restore here, then export --to)',
        );
      }
      const logger = createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel }, 2);
      const result = await restoreStore({ dataDir: config.dataDir, file: path.resolve(file), logger, ...opts });
      for (const dir of result.movedAside) console.log(`the store that was there is kept in ${dir}`);
      for (const warning of result.warnings) console.error(warning);
      console.log(`restored ${result.rows} rows in ${result.tables} tables from ${file} into ${config.dataDir}; start the server as usual`);
    });

  program
    .command('export')
    .requiredOption('--to <url>', 'an empty PostgreSQL database, postgresql://user:password@host:5432/name')
    .description('copy the store into an empty PostgreSQL database (works while the server runs), then switch with DATABASE_URL')
    .action(async (opts: { to: string }) => {
      const tables = await runCommand(exportOperation, { to: opts.to });
      const config = loadConfig();
      console.table(tables);
      const target = new URL(opts.to);
      console.log(`copied ${tables.reduce((sum, t) => sum + t.rows, 0)} rows into ${target.host}${target.pathname}.`);
      console.log(
        config.encryptionKey
          ? 'Start with DATABASE_URL set to that database and the same ENCRYPTION_KEY.'
          : `Start with DATABASE_URL set to that database and ENCRYPTION_KEY set to the key in ${config.dataDir}/encryption.key (webhook secrets are encrypted with it).`,
      );
    });

  program
    .command('import-pglite')
    .description('import the PGlite store of sync-gateway 0.1 (DATA_DIR/pglite) into the embedded PostgreSQL; the first start does it too')
    .action(async () => {
      const result = await runCommand(importPgliteOperation, {});
      if (result.keptIn) {
        console.log(`imported DATA_DIR/pglite into the embedded PostgreSQL; the old store is kept in ${result.keptIn} until you remove it`);
      } else if (result.notImported) {
        console.log(
          `${result.notImported} was not imported: a server holds DATA_DIR. Stop it and run import-pglite again (or just start it again).`,
        );
        process.exitCode = 1;
      } else if (result.earlier.length > 0) {
        console.log(`nothing to import: imported earlier, the old store is kept in ${result.earlier.join(', ')}`);
      } else {
        console.log('nothing to import: DATA_DIR holds no PGlite store of 0.1');
      }
    });
}
