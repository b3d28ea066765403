import type { ControlOperation } from '../operation';
import { createAdminOperation } from './admin.operations';
import { backupOperation, migrateOperation } from './store.operations';
import { createTokenOperation, listTokensOperation, revokeTokenOperation } from './token.operations';
import {
  addWebhookOperation,
  listWebhooksOperation,
  removeWebhookOperation,
  rotateWebhookSecretOperation,
  setWebhookActiveOperation,
  testWebhookOperation,
} from './webhook.operations';

/**
 * Every operation the control channel knows, by name. To add one: define it with
 * `defineOperation` in a file of its own (under src/control/operations/ or beside its CLI command)
 * and list it here; the running server answers it over its socket and the CLI runs it with
 * `runOperation` (docs/operations.md, "The CLI while the server runs").
 */
const OPERATIONS: ReadonlyArray<ControlOperation> = [
  createTokenOperation,
  listTokensOperation,
  revokeTokenOperation,
  createAdminOperation,
  addWebhookOperation,
  rotateWebhookSecretOperation,
  testWebhookOperation,
  listWebhooksOperation,
  setWebhookActiveOperation,
  removeWebhookOperation,
  migrateOperation,
  backupOperation,
] as ReadonlyArray<ControlOperation>;

export const controlOperations: ReadonlyMap<string, ControlOperation> = new Map(OPERATIONS.map((op) => [op.name, op]));
