import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { describeDatabaseError } from '../errors/database-errors';
import { claimDueItems, type ClaimedItem } from './sql/claim-due-items';
import { extendLeases } from './sql/extend-leases';
import type { QueueDatabase } from './sql/queue-database';

export type LeaseBookOptions = {
  database: QueueDatabase;
  /** The worker's clock: leases run until its now plus `leaseMs`. */
  clock: () => Date;
  leaseMs: number;
  logger: Logger;
};

/**
 * The items a worker holds a lease on (claimed, result not written yet) and the heartbeat that
 * keeps them: every third of a lease it pushes out the lease of every item held, so that only a
 * dead worker's items expire and a delivery may take longer than the lease (ADR 0016).
 */
export type LeaseBook = {
  /** Claims up to `limit` due items under a new lease token, leaving out the items held already. */
  claim(limit: number): Promise<{ token: string; items: ClaimedItem[] }>;
  /** Forgets an item: its result is written, or it is let go and runs out to be attempted again. */
  release(id: number): void;
  /** One heartbeat: the leases of every item held, pushed out to the clock's now plus a lease. */
  renew(): Promise<void>;
  /** Starts and stops the heartbeat. */
  start(): void;
  stop(): void;
};

export function createLeaseBook({ database, clock, leaseMs, logger }: LeaseBookOptions): LeaseBook {
  /** Item id → the lease token it was claimed under. */
  const held = new Map<number, string>();
  let heartbeat: NodeJS.Timeout | undefined;

  const renew = async (): Promise<void> => {
    if (held.size === 0) return;
    await extendLeases(database, held, new Date(clock().getTime() + leaseMs));
  };

  return {
    async claim(limit) {
      const token = randomUUID();
      const now = clock();
      const items = await claimDueItems(database, {
        now,
        token,
        leaseUntil: new Date(now.getTime() + leaseMs),
        limit,
        exclude: [...held.keys()],
      });
      for (const item of items) held.set(item.id, token);
      return { token, items };
    },
    release: (id) => void held.delete(id),
    renew,
    start() {
      heartbeat ??= setInterval(
        () => renew().catch((error: unknown) => logger.warn({ cause: describeDatabaseError(error) }, 'could not renew delivery leases')),
        Math.max(100, Math.floor(leaseMs / 3)),
      );
    },
    stop() {
      clearInterval(heartbeat);
      heartbeat = undefined;
    },
  };
}
