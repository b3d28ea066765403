import { loadConfig } from '../config';
import type { ControlOperation, ResultOf } from '../control/operation';
import { runOperation } from '../control/run-operation';
import { createLogger } from '../logger';
import { setWebhookNetworks } from '../deliveries/network-policy';

/**
 * What every store command does: read the configuration (env, DATA_DIR, DATABASE_URL, as the
 * server does), then run the operation where it can run (src/control/run-operation.ts). Results
 * are printed on stdout by the command; only problems are logged, to stderr.
 */
export async function runCommand<Op extends ControlOperation>(operation: Op, args: unknown): Promise<ResultOf<Op>> {
  const config = loadConfig();
  setWebhookNetworks(config.webhookNetworks);
  const logger = createLogger({ logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel }, 2);
  return runOperation(operation, args, { config, logger, onWait: (message) => console.error(message) });
}
