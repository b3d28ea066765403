import type { AppConfig } from '../config';
import type { Database } from '../db/database';
import type { EventHub } from '../events/hub';
import type { SecretBox } from '../webhooks/secret-box';
import type { ControlContext } from './operation';

/** The context of operations the running server runs for the CLI: its own store, keys and events. */
export function serverControlContext(deps: { db: Database; config: AppConfig; secrets: SecretBox; events: EventHub }): ControlContext {
  return {
    db: deps.db,
    config: deps.config,
    runsIn: 'server',
    secrets: () => Promise.resolve(deps.secrets),
    async announceRevocation() {
      // This process drops the token at once; other replicas hear of it through Redis.
      deps.events.publishRevocation();
      if (deps.config.redisUrl && !(await deps.events.whenConnected(1_000)))
        return 'Redis is unreachable: other replicas drop the token within TOKEN_CACHE_TTL_MS';
      return undefined;
    },
  };
}
