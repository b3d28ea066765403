import { InvalidArgumentError, type Command } from 'commander';
import { createTokenOperation, listTokensOperation, revokeTokenOperation } from '../control/operations/token.operations';
import { ROLES, type Role } from '../auth/roles';
import { runCommand } from './run-command';

const role = (value: string): Role => {
  const known = ROLES.find((r) => r === value);
  if (!known) throw new InvalidArgumentError(`must be one of ${ROLES.join(', ')}`);
  return known;
};

const ROLE_HELP = `what the token may do: ${ROLES.join(', ')} (erp pushes, webshop reads and acknowledges, viewer only reads, integration is both sides as before roles)`;

export function registerTokenCommands(program: Command): void {
  const token = program.command('token').description('manage API tokens (works while the server runs)');
  token
    .command('create')
    .description('create a token; it is printed once, alone on the last line')
    .requiredOption('--name <name>', 'a name that says who uses the token')
    .option('--role <role>', ROLE_HELP, role, 'integration')
    .option('--channel <name>', 'webshop and viewer tokens: the channel whose change feed it reads', 'default')
    .action(async (opts: { name: string; role: Role; channel: string }) => {
      const { token: secret, summary } = await runCommand(createTokenOperation, opts);
      const channel = summary.channel === 'default' ? '' : `, channel ${summary.channel}`;
      console.log(`Created token "${summary.name}" (id ${summary.id}, role ${summary.role}${channel}). It is shown only now:`);
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
          channel: t.channel,
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
