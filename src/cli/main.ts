import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { loadConfig, type AppConfig } from '../config';
import { PreflightError } from '../config/preflight';
import { migrateOperation } from '../control/operations/store.operations';
import type { ErrorDetail } from '../errors/app-error';
import { createLogger } from '../logger';
import { registerAdminCommands } from './admin-commands';
import { registerChannelCommands } from './channel-commands';
import { runCommand } from './run-command';
import { registerStoreCommands } from './store-commands';
import { registerTokenCommands } from './token-commands';
import { registerWebhookCommands } from './webhook-commands';

/** package.json sits two folders up from both src/cli (tsx) and dist/cli (npm start). */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/** The whole service (GraphQL schema, HTTP edges) loads only for `serve` and `worker`, not for a token command. */
const loadServer = () => import('../server.js');
/** How a signal stops `serve` and `worker`: the embedded store's cluster must not outlive them. */
const stopOptions = (config: AppConfig) => ({ graceMs: config.shutdownGraceMs, startOwnsCluster: !config.databaseUrl });

/**
 * The CLI and the server share one configuration: env, DATA_DIR, DATABASE_URL. Commands that
 * work on the store (tokens, admins, webhooks…) are operations of the control channel
 * (src/control/): they run in the running embedded server when there is one, in this process
 * otherwise. Each group of commands registers itself from a file of its own.
 */
export function buildCli(): Command {
  const program = new Command('sync-gateway')
    .description('ERP ↔ webshop synchronisation middleware')
    .version(packageVersion(), '-v, --version', 'print the version')
    .showHelpAfterError();

  program
    .command('serve')
    .description('apply pending migrations and serve the API (what npm start runs)')
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config);
      const { startServer, stopOnSignals } = await loadServer();
      await stopOnSignals(startServer(config, logger), logger, stopOptions(config));
    });

  program
    .command('worker')
    .description('run only the webhook delivery worker (serve runs one too unless WORKER_ENABLED=false)')
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config);
      const { startWorker, stopOnSignals } = await loadServer();
      await stopOnSignals(startWorker(config, logger), logger, stopOptions(config));
    });

  program
    .command('migrate')
    .description('apply pending database migrations and exit (a running server has applied them already)')
    .action(async () => {
      const { applied } = await runCommand(migrateOperation, {});
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
    });

  registerTokenCommands(program);
  registerChannelCommands(program);
  registerAdminCommands(program);
  registerWebhookCommands(program);
  registerStoreCommands(program);
  return program;
}

/** Argument names as the operator typed them: `--entity-type`, not entityType. */
const ARGUMENT_LABELS: Record<string, string> = { idOrName: '<id|name>', id: '<id>', graceSeconds: '--grace' };
const argumentLabel = (field: string) => ARGUMENT_LABELS[field] ?? `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** One line per problem: a start-up problem, each invalid argument, or the error itself. */
function problemLines(error: unknown): string[] {
  if (error instanceof PreflightError) return error.problems;
  const details = (error as { details?: ErrorDetail[] }).details ?? [];
  if (details.length > 0) return details.map((d) => `${argumentLabel(d.field)}: ${d.message}`);
  return [(error as Error).message];
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (error) {
    for (const line of problemLines(error)) console.error(`sync-gateway: ${line}`);
    process.exitCode = 1;
  }
}

if (require.main === module) void main(process.argv);
