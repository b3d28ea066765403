import { InvalidArgumentError, type Command } from 'commander';
import {
  createChannelOperation,
  deleteChannelOperation,
  listChannelsOperation,
  pollChannelOperation,
  pushChannelOperation,
} from '../control/operations/channel.operations';
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
    .option('--push-url <url>', 'push its change records to this URL (change webhooks) instead of being polled')
    .option('--batch-size <n>', 'with --push-url: change records per delivery (default 100, at most 500)')
    .action(async (name: string, opts: { from: ChannelStart; pushUrl?: string; batchSize?: string }) => {
      const created = await runCommand(createChannelOperation, { name, from: opts.from, pushUrl: opts.pushUrl, batchSize: opts.batchSize });
      console.log(`created channel "${created.name}" (from ${created.startedFrom})`);
      if (created.push) printPush(created.push, created.newSecret);
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
    .command('push')
    .description("push the channel's change records to a URL from now on (change webhooks); its tokens may no longer poll it")
    .argument('<name>', 'a channel, default included')
    .requiredOption('--url <url>', 'http(s) URL that receives the batches')
    .option('--batch-size <n>', 'change records per delivery (default 100, at most 500)')
    .action(async (name: string, opts: { url: string; batchSize?: string }) => {
      const channel = await runCommand(pushChannelOperation, { name, url: opts.url, batchSize: opts.batchSize });
      console.log(`channel "${channel.name}" pushes its changes`);
      if (channel.push) printPush(channel.push, channel.newSecret);
    });
  channel
    .command('poll')
    .description("stop pushing: the channel's tokens poll it again (nothing pending is lost)")
    .argument('<name>')
    .action(async (name: string) => {
      const channel = await runCommand(pollChannelOperation, { name });
      console.log(`channel "${channel.name}" is polled again`);
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

function printPush(push: { url: string; batchSize: number; webhookId: number }, secret: string | undefined): void {
  console.log(
    `pushing to ${push.url} in batches of ${push.batchSize} (webhook ${push.webhookId}: pause, test or rotate it with the webhook commands)`,
  );
  if (secret) {
    console.log('Its signing secret is shown only now:');
    console.log(secret);
  }
}
