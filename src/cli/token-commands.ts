import { InvalidArgumentError, type Command } from 'commander';
import { createTokenOperation, listTokensOperation, revokeTokenOperation } from '../control/operations/token.operations';
import { runCommand } from './run-command';

const role = (value: string) => {
  if (value !== 'integration' && value !== 'admin') throw new InvalidArgumentError('must be integration or admin');
  return value;
};

export function registerTokenCommands(program: Command): void {
  const token = program.command('token').description('manage API tokens (works while the server runs)');
  token
    .command('create')
    .description('create a token; it is printed once, alone on the last line')
    .requiredOption('--name <name>', 'a name that says who uses the token')
    .option('--role <role>', 'integration or admin', role, 'integration')
    .action(async (opts: { name: string; role: 'integration' | 'admin' }) => {
      const { token: secret, summary } = await runCommand(createTokenOperation, opts);
      console.log(`Created token "${summary.name}" (id ${summary.id}, role ${summary.role}). It is shown only now:`);
      console.log(secret);
    });
  token
    .command('list')
    .description('list tokens (never their secrets)')
    .action(async () => {
      const rows = await runCommand(listTokensOperation, {});
      if (rows.length === 0) return console.log('no tokens');
      console.table(
        rows.map((t) => ({
          id: t.id,
          name: t.name,
          role: t.role,
          created: t.createdAt,
          lastUsed: t.lastUsedAt ?? '-',
          revoked: t.revokedAt ?? '-',
        })),
      );
    });
  token
    .command('revoke')
    .description('revoke a token by id or name; serving processes drop it at once')
    .argument('<id|name>')
    .action(async (idOrName: string) => {
      const { summary, warning } = await runCommand(revokeTokenOperation, { idOrName });
      console.log(`revoked token "${summary.name}" (id ${summary.id})`);
      if (warning) console.error(warning);
    });
}
