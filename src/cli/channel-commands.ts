import { InvalidArgumentError, type Command } from 'commander';
import { createChannelOperation, deleteChannelOperation, listChannelsOperation } from '../control/operations/channel.operations';
import { CHANNEL_STARTS, type ChannelStart } from '../channels/channel.service';
import { runCommand } from './run-command';

const start = (value: string): ChannelStart => {
  const known = CHANNEL_STARTS.find((s) => s === value);
  if (!known) throw new InvalidArgumentError(`must be one of ${CHANNEL_STARTS.join(', ')}`);
  return known;
};

export function registerChannelCommands(program: Command): void {
  const channel = program
    .command('channel')
    .description('manage channels: one change feed per connected shop (works while the server runs)');
  channel
    .command('create')
    .description('create a channel, then bind a webshop token to it: token create --role webshop --channel NAME')
    .argument('<name>', 'lower-case letters, digits, - and _')
    .option(
      '--from <now|all>',
      'now: nothing pending, every later change; all: every current record pending as new (a full initial sync)',
      start,
      'now',
    )
    .action(async (name: string, opts: { from: ChannelStart }) => {
      const created = await runCommand(createChannelOperation, { name, from: opts.from });
      console.log(`created channel "${created.name}" (from ${created.startedFrom})`);
    });
  channel
    .command('list')
    .description('list channels with their tokens and what is pending per entity type')
    .action(async () => {
      const channels = await runCommand(listChannelsOperation, {});
      console.table(
        channels.map((c) => ({
          name: c.name,
          from: c.startedFrom ?? '-',
          tokens: c.tokens.join(', ') || '-',
          pending: c.lag.map((l) => `${l.entityType} ${l.pending}`).join(', '),
          oldestPendingSeconds: Math.max(0, ...c.lag.map((l) => Math.round(l.oldestPendingAgeSeconds ?? 0))),
        })),
      );
    });
  channel
    .command('delete')
    .description('delete a channel with its pending state; the tokens bound to it are revoked')
    .argument('<name>')
    .action(async (name: string) => {
      const { channel: deleted, warning } = await runCommand(deleteChannelOperation, { name });
      const revoked = deleted.tokens.length > 0 ? `; revoked tokens: ${deleted.tokens.join(', ')}` : '';
      console.log(`deleted channel "${deleted.name}"${revoked}`);
      if (warning) console.error(warning);
    });
}
