import { randomBytes } from 'node:crypto';
import { Command, InvalidArgumentError } from 'commander';
import { createAdminAccount } from '../accounts/account.service';
import { createToken, listTokens, revokeToken } from '../auth/token.service';
import { loadConfig, type AppConfig } from '../config';
import { PreflightError } from '../config/preflight';
import { openDatabase, type Database } from '../db/database';
import { createEventHub } from '../events/hub';
import { createLogger } from '../logger';
import { startServer, startWorker, stopOnSignals } from '../server';
import { registerStoreCommands } from './store-commands';
import { setWebhookNetworks } from '../webhooks/network-policy';
import { createSecretBox, loadEncryptionKey } from '../webhooks/secret-box';
import { sendTestEvent } from '../webhooks/webhook-test.service';
import {
  createWebhook,
  listWebhooks,
  removeWebhook,
  rotateWebhookSecret,
  updateWebhook,
  type WebhookInput,
} from '../webhooks/webhook.service';

/**
 * The CLI and the server share one configuration: env, DATA_DIR, DATABASE_URL. Commands other
 * than `migrate` bring the schema up to date first, so they work on a fresh data directory.
 */
async function withDatabase<T>(fn: (db: Database, config: AppConfig) => Promise<T>, { migrateFirst = true } = {}): Promise<T> {
  const config = loadConfig();
  setWebhookNetworks(config.webhookNetworks);
  // Commands print their results on stdout; only problems are logged, to stderr.
  const logger = createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel }, 2);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, embeddedFsync: config.embeddedFsync, logger });
  try {
    if (migrateFirst) await db.migrate();
    return await fn(db, config);
  } finally {
    await db.close();
  }
}

const role = (value: string) => {
  if (value !== 'integration' && value !== 'admin') throw new InvalidArgumentError('must be integration or admin');
  return value;
};

export function buildCli(): Command {
  const program = new Command('sync-gateway').description('ERP ↔ webshop synchronisation middleware').showHelpAfterError();

  program
    .command('serve')
    .description('apply pending migrations and serve the API (what npm start runs)')
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config);
      stopOnSignals(await startServer(config, logger), logger);
    });

  program
    .command('worker')
    .description('run only the webhook delivery worker (serve runs one too unless WORKER_ENABLED=false)')
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config);
      stopOnSignals(await startWorker(config, logger), logger);
    });

  program
    .command('migrate')
    .description('apply pending database migrations and exit')
    .action(() =>
      withDatabase(
        async (db) => {
          const applied = await db.migrate();
          console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
        },
        { migrateFirst: false },
      ),
    );

  const token = program.command('token').description('manage API tokens');
  token
    .command('create')
    .description('create a token; it is printed once, alone on the last line')
    .requiredOption('--name <name>', 'a name that says who uses the token')
    .option('--role <role>', 'integration or admin', role, 'integration')
    .action((opts: { name: string; role: 'integration' | 'admin' }) =>
      withDatabase(async (db) => {
        const { token: secret, summary } = await createToken(db.prisma, opts.name, opts.role);
        console.log(`Created token "${summary.name}" (id ${summary.id}, role ${summary.role}). It is shown only now:`);
        console.log(secret);
      }),
    );
  token
    .command('list')
    .description('list tokens (never their secrets)')
    .action(() =>
      withDatabase(async (db) => {
        const rows = await listTokens(db.prisma);
        if (rows.length === 0) return console.log('no tokens');
        console.table(
          rows.map((t) => ({
            id: t.id,
            name: t.name,
            role: t.role,
            created: t.createdAt.toISOString(),
            lastUsed: t.lastUsedAt?.toISOString() ?? '-',
            revoked: t.revokedAt?.toISOString() ?? '-',
          })),
        );
      }),
    );
  token
    .command('revoke')
    .description('revoke a token by id or name')
    .argument('<id|name>')
    .action((idOrName: string) =>
      withDatabase(async (db, config) => {
        const t = await revokeToken(db.prisma, idOrName);
        console.log(`revoked token "${t.name}" (id ${t.id})`);
        // With Redis the serving replicas drop the token at once; without, within TOKEN_CACHE_TTL_MS.
        if (config.redisUrl) {
          const events = createEventHub({ redisUrl: config.redisUrl });
          if (await events.whenConnected(5_000)) events.publishRevocation();
          else console.error('Redis is unreachable: serving replicas drop the token within TOKEN_CACHE_TTL_MS');
          await events.close();
        }
      }),
    );
  const admin = program.command('admin').description('manage admin accounts');
  admin
    .command('create')
    .description('create an active admin account (the first one must come from here); prints a password when none is given')
    .requiredOption('--email <email>')
    .option('--password <password>', '12 characters or more; generated when left out')
    .action((opts: { email: string; password?: string }) =>
      withDatabase(async (db) => {
        const password = opts.password ?? randomBytes(18).toString('base64url');
        const account = await createAdminAccount(db.prisma, { email: opts.email, password });
        console.log(`created admin account ${account.email} (id ${account.id})`);
        if (!opts.password) console.log(`password (shown only now): ${password}`);
      }),
    );

  const webhook = program.command('webhook').description('manage webhook configurations (sync_failure deliveries)');
  webhook
    .command('add')
    .description('add a configuration; the secret signs deliveries and is stored encrypted (generated and printed once when left out)')
    .requiredOption('--url <url>', 'http(s) URL that receives the POSTs')
    .requiredOption('--entity-type <type>', 'product, partner or sale_order')
    .requiredOption('--direction <direction>', 'to_erp or to_webshop')
    .option('--secret <secret>', 'a whsec_ secret (Standard Webhooks), or a raw shared secret of 16 characters or more')
    .action((opts: { url: string; entityType: string; direction: string; secret?: string }) =>
      withDatabase(async (db, config) => {
        const box = createSecretBox(await loadEncryptionKey(config));
        const w = await createWebhook(db.prisma, box, {
          url: opts.url,
          entityType: opts.entityType as WebhookInput['entityType'],
          direction: opts.direction as WebhookInput['direction'],
          secret: opts.secret,
        });
        console.log(`added webhook ${w.id}: ${w.entityType} ${w.direction} → ${w.url}`);
        if (w.newSecret) printSecret(w.newSecret);
      }),
    );
  webhook
    .command('rotate-secret')
    .argument('<id>')
    .description('generate a new secret; the old one keeps signing beside it for the grace period, then is dropped')
    .option('--grace <duration>', 'how long the old secret stays valid: 0, 90s, 30m, 24h, 7d (at most 30d)', graceSeconds, 24 * 3600)
    .action((id: string, opts: { grace: number }) =>
      withDatabase(async (db, config) => {
        const box = createSecretBox(await loadEncryptionKey(config));
        const w = await rotateWebhookSecret(db.prisma, box, webhookId(id), { graceSeconds: opts.grace });
        const until = new Date(Date.now() + opts.grace * 1000).toISOString();
        console.log(
          `rotated the secret of webhook ${w.id}; ${opts.grace > 0 ? `the old secret stays valid until ${until}` : 'the old secret is no longer valid'}`,
        );
        printSecret(w.newSecret!);
      }),
    );
  webhook
    .command('test')
    .argument('<id>')
    .description('send a signed webhook.test event now and show the answer (not queued, not retried)')
    .action((id: string) =>
      withDatabase(async (db, config) => {
        const box = createSecretBox(await loadEncryptionKey(config));
        const result = await sendTestEvent(db.prisma, box, webhookId(id));
        console.log(
          `${result.outcome}${result.statusCode !== null ? ` (HTTP ${result.statusCode})` : ''} in ${result.durationMs} ms${result.error ? `: ${result.error}` : ''}`,
        );
        if (result.responseBodyExcerpt) console.log(result.responseBodyExcerpt);
        if (result.outcome !== 'delivered') process.exitCode = 1;
      }),
    );
  webhook
    .command('list')
    .description('list configurations (never their secrets)')
    .action(() =>
      withDatabase(async (db) => {
        const rows = await listWebhooks(db.prisma);
        if (rows.length === 0) return console.log('no webhooks');
        console.table(rows.map((w) => ({ id: w.id, entityType: w.entityType, direction: w.direction, url: w.url, active: w.active })));
      }),
    );
  for (const [command, active] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    webhook
      .command(command)
      .argument('<id>')
      .description(
        active
          ? 'resume deliveries to a configuration'
          : 'stop deliveries to a configuration (queued ones fail; retry-failed sends them after re-enabling)',
      )
      .action((id: string) =>
        withDatabase(async (db, config) => {
          const box = createSecretBox(await loadEncryptionKey(config));
          const w = await updateWebhook(db.prisma, box, webhookId(id), { active });
          console.log(`${command}d webhook ${w.id}`);
        }),
      );
  }
  webhook
    .command('remove')
    .argument('<id>')
    .description('remove a configuration')
    .action((id: string) =>
      withDatabase(async (db) => {
        const w = await removeWebhook(db.prisma, webhookId(id));
        console.log(`removed webhook ${w.id}`);
      }),
    );
  registerStoreCommands(program);
  return program;
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

export async function main(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (error) {
    // One line per start-up problem, so that each reads on its own.
    for (const problem of error instanceof PreflightError ? error.problems : [(error as Error).message]) {
      console.error(`sync-gateway: ${problem}`);
    }
    for (const d of (error as { details?: Array<{ field: string; message: string }> }).details ?? []) {
      console.error(`  ${d.field}: ${d.message}`);
    }
    process.exitCode = 1;
  }
}

if (require.main === module) void main(process.argv);
