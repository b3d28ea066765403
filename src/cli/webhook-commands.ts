import { InvalidArgumentError, type Command } from 'commander';
import {
  addWebhookOperation,
  listWebhooksOperation,
  removeWebhookOperation,
  rotateWebhookSecretOperation,
  setWebhookActiveOperation,
  testWebhookOperation,
} from '../control/operations/webhook.operations';
import { runCommand } from './run-command';

export function registerWebhookCommands(program: Command): void {
  const webhook = program
    .command('webhook')
    .description('manage webhook configurations (sync_failure deliveries; works while the server runs)');
  webhook
    .command('add')
    .description('add a configuration; the secret signs deliveries and is stored encrypted (generated and printed once when left out)')
    .requiredOption('--url <url>', 'http(s) URL that receives the POSTs')
    .requiredOption('--entity-type <type>', 'product, partner or sale_order')
    .requiredOption('--direction <direction>', 'to_erp or to_webshop')
    .option('--secret <secret>', 'a whsec_ secret (Standard Webhooks), or a raw shared secret of 16 characters or more')
    .action(async (opts: { url: string; entityType: string; direction: string; secret?: string }) => {
      const w = await runCommand(addWebhookOperation, opts);
      console.log(`added webhook ${w.id}: ${w.entityType} ${w.direction} → ${w.url}`);
      if (w.newSecret) printSecret(w.newSecret);
    });
  webhook
    .command('rotate-secret')
    .argument('<id>', 'the webhook id', webhookId)
    .description('generate a new secret; the old one keeps signing beside it for the grace period, then is dropped')
    .option('--grace <duration>', 'how long the old secret stays valid: 0, 90s, 30m, 24h, 7d (at most 30d)', graceSeconds, 24 * 3600)
    .action(async (id: number, opts: { grace: number }) => {
      const w = await runCommand(rotateWebhookSecretOperation, { id, graceSeconds: opts.grace });
      console.log(
        `rotated the secret of webhook ${w.id}; ` +
          (opts.grace > 0
            ? `the old secret stays valid until ${w.signatureSwitchAt} and signs X-Webhook-Signature until then ` +
              '(the new one signs X-Webhook-Signature-Next)'
            : 'the old secret is no longer valid'),
      );
      printSecret(w.newSecret!);
    });
  webhook
    .command('test')
    .argument('<id>', 'the webhook id', webhookId)
    .description('send a signed webhook.test event now and show the answer (not queued, not retried)')
    .action(async (id: number) => {
      const result = await runCommand(testWebhookOperation, { id });
      console.log(
        `${result.outcome}${result.statusCode !== null ? ` (HTTP ${result.statusCode})` : ''} in ${result.durationMs} ms${result.error ? `: ${result.error}` : ''}`,
      );
      if (result.responseBodyExcerpt) console.log(result.responseBodyExcerpt);
      if (result.outcome !== 'delivered') process.exitCode = 1;
    });
  webhook
    .command('list')
    .description('list configurations (never their secrets)')
    .action(async () => {
      const rows = await runCommand(listWebhooksOperation, {});
      if (rows.length === 0) return console.log('no webhooks');
      console.table(rows.map((w) => ({ id: w.id, entityType: w.entityType, direction: w.direction, url: w.url, active: w.active })));
    });
  for (const [command, active] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    webhook
      .command(command)
      .argument('<id>', 'the webhook id', webhookId)
      .description(
        active
          ? 'resume deliveries to a configuration'
          : 'stop deliveries to a configuration (queued ones fail; retry-failed sends them after re-enabling)',
      )
      .action(async (id: number) => {
        const w = await runCommand(setWebhookActiveOperation, { id, active });
        console.log(`${command}d webhook ${w.id}`);
      });
  }
  webhook
    .command('remove')
    .argument('<id>', 'the webhook id', webhookId)
    .description('remove a configuration')
    .action(async (id: number) => {
      const w = await runCommand(removeWebhookOperation, { id });
      console.log(`removed webhook ${w.id}`);
    });
}

/** The secret alone on the last line, so scripts can take it with `tail -n1`. */
function printSecret(secret: string): void {
  console.log('Signing secret (shown only now; receivers verify with new Webhook(secret) from standardwebhooks or svix):');
  console.log(secret);
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

function graceSeconds(text: string): number {
  const m = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!m) throw new InvalidArgumentError(`must be a duration like 0, 90s, 30m, 24h or 7d, got ${JSON.stringify(text)}`);
  return Number(m[1]) * DURATION_UNITS[m[2] || 's']!;
}

function webhookId(text: string): number {
  if (!/^\d+$/.test(text)) throw new InvalidArgumentError(`webhook id must be a number, got ${JSON.stringify(text)}`);
  return Number(text);
}
