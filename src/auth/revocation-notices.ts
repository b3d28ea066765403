import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { listenOnChannel, type ChannelListener } from '../events/pg-channel-listener';

/**
 * Revocations made outside a serving process (the CLI, which connects to the database directly)
 * reach the serving processes through PostgreSQL's NOTIFY on this channel, with or without Redis:
 * each drops its cached tokens at once instead of after TOKEN_CACHE_TTL_MS.
 */
const REVOCATION_CHANNEL = 'sync_gateway_revocations';

export async function announceRevocation(sql: Pick<Pool, 'query'>): Promise<void> {
  await sql.query(`SELECT pg_notify('${REVOCATION_CHANNEL}', '')`);
}

/** In a serving process: `onRevoked` on every notice, and after each reconnection (notices sent meanwhile are gone). */
export function listenForRevocations(databaseUrl: string, options: { logger: Logger; onRevoked: () => void }): ChannelListener {
  return listenOnChannel(databaseUrl, {
    channel: REVOCATION_CHANNEL,
    applicationName: 'sync-gateway-listen-revocations',
    logger: options.logger,
    onWork: options.onRevoked,
    // At start no token is cached yet: nothing to drop.
    wakeOnFirstListen: false,
  });
}
