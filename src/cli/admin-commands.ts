import type { Command } from 'commander';
import { createAdminOperation } from '../control/operations/admin.operations';
import { runCommand } from './run-command';

export function registerAdminCommands(program: Command): void {
  const admin = program.command('admin').description('manage admin accounts (works while the server runs)');
  admin
    .command('create')
    .description('create an active admin account (the first one must come from here); prints a password when none is given')
    .requiredOption('--email <email>')
    .option('--password <password>', '12 characters or more; generated when left out')
    .action(async (opts: { email: string; password?: string }) => {
      const { account, generatedPassword } = await runCommand(createAdminOperation, opts);
      console.log(`created admin account ${account.email} (id ${account.id})`);
      if (generatedPassword) console.log(`password (shown only now): ${generatedPassword}`);
    });
}
