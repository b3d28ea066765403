import type { Logger } from 'pino';
import type { Pool } from 'pg';
import { acknowledge, type FeedListing, type SqlRunner } from '../changes/ledger';
import { changeListPage } from '../changes/page';
import { previousValues } from '../changes/previous-values';
import { TRACKED_ENTITIES, type AnyTrackedEntity } from '../changes/tracked-entities';
import { oldestPendingSql } from '../changes/sql/fragments';
import { join, sql } from '../changes/sql/sql';
import { inPgTransaction } from '../db/pg-transaction';

/**
 * Change webhooks (issue 32, ADR 0047): a channel that pushes gets its change records delivered
 * by the webhook worker, one batch in flight at a time. `produce` queues the next batch of every
 * push channel with none in flight; `acknowledge` runs when a batch was answered 2xx, before the
 * result is recorded, and acknowledges exactly the revisions the batch carried. Both run on a pg
 * pool, in the delivery worker's thread too (no Prisma runtime there).
 */

export const CHANGES_EVENT = 'changes';

/** One change record as the change lists answer it, with the id and revision the ack names. */
export type ChangeBatchPayload = {
  event: typeof CHANGES_EVENT;
  channel: string;
  entity_type: string;
  records: Array<Record<string, unknown> & { id: number; revision: number }>;
};

export type ChangeBatches = {
  /** Queues the next batch of each push channel that has none in flight; returns how many it queued. */
  produce(): Promise<number>;
  /** The batch was answered 2xx: acknowledges its revisions on its channel. */
  acknowledge(payload: Record<string, unknown>): Promise<void>;
};

type PushTarget = { id: number; channel_id: number | null; name: string | null; batch_size: number | null };

export const DEFAULT_BATCH_SIZE = 100;
export const MAX_BATCH_SIZE = 500;

/** No batch pending or being delivered: a push channel whose last batch is done (acknowledged, or abandoned: its records are still pending and go again). */
const IDLE = sql`NOT EXISTS (SELECT 1 FROM outbound_queue_items AS o
                              WHERE o.webhook_config_id = c.id AND o.status IN ('pending', 'processing'))`;

const PUSH_TARGETS_IDLE = sql`
  SELECT c.id, c.channel_id, ch.name, c.batch_size FROM webhook_configs AS c LEFT JOIN channels AS ch ON ch.id = c.channel_id
   WHERE c.kind = 'changes' AND c.active AND ${IDLE}`;

export function createChangeBatches(pool: Pool, logger: Logger): ChangeBatches {
  return {
    async produce() {
      const { rows } = await pool.query<PushTarget>(PUSH_TARGETS_IDLE.text);
      let queued = 0;
      for (const target of rows) {
        try {
          if (await queueNextBatch(pool, target)) queued++;
        } catch (error) {
          logger.warn({ err: error, webhook: target.id }, 'could not queue the next batch of change records; trying again later');
        }
      }
      return queued;
    },
    async acknowledge(payload) {
      const batch = payload as unknown as ChangeBatchPayload;
      const entity = TRACKED_ENTITIES.find((e) => e.entityType === batch.entity_type);
      if (!entity) throw new Error(`A change batch of unknown entity type ${String(batch.entity_type)}`);
      const channelId = await channelIdOf(pool, batch.channel);
      // Gone with its channel: nothing is pending there any more.
      if (channelId === undefined) return;
      const items = batch.records.map((r) => ({ id: r.id, revision: r.revision }));
      await inPgTransaction(pool, (tx) => acknowledge(tx, entity.table, { key: 'change-webhook', channelId }, items));
    },
  };
}

/** Queues one batch for `target` unless another producer did meanwhile; true when it queued one. */
async function queueNextBatch(pool: Pool, target: PushTarget): Promise<boolean> {
  return inPgTransaction(pool, async (tx) => {
    // Producers on every replica take turns per channel, and check again once it is their turn.
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext('change_batches'), ${target.id}::int)::text`;
    await tx.$executeRaw`SET LOCAL jit = off`; // as for a channel's acknowledgement (channel-ledger.ts)
    const idle = await tx.$queryRaw<unknown[]>(
      sql`SELECT 1 FROM webhook_configs AS c WHERE c.id = ${target.id}::int AND c.active AND ${IDLE}`,
    );
    if (idle.length === 0) return false;
    const entity = await oldestPendingEntity(tx, target.channel_id);
    if (!entity) return false;
    const reader: FeedListing = { key: null, channelId: target.channel_id };
    const page = await changeListPage<Record<string, unknown> & { id: number; revision: number }>({ sql: pool }, entity.table, reader, {
      limit: target.batch_size ?? DEFAULT_BATCH_SIZE,
    });
    if (page.payload.length === 0) return false;
    const payload: ChangeBatchPayload = {
      event: CHANGES_EVENT,
      channel: target.name ?? 'default',
      entity_type: entity.entityType,
      records: page.payload.map((row) => changeRecord(entity, row)),
    };
    await tx.$executeRaw`
      INSERT INTO outbound_queue_items (status, message_id, event, payload, webhook_config_id)
      VALUES ('pending', 'msg_' || replace(gen_random_uuid()::text, '-', ''), ${CHANGES_EVENT}, ${JSON.stringify(payload)}::jsonb, ${target.id}::int)`;
    return true;
  });
}

/** The entity whose oldest pending change is oldest on the channel: its batch goes first. */
async function oldestPendingEntity(tx: SqlRunner, channelId: number | null): Promise<AnyTrackedEntity | undefined> {
  // The oldest of the entities' oldest pending changes; ties go to the first in registry order.
  const oldest = TRACKED_ENTITIES.map((entity) => oldestPendingSql(entity.table, channelId));
  const [row] = await tx.$queryRaw<Array<{ i: number }>>(sql`
    SELECT o.i::int AS i FROM unnest(ARRAY[${join(oldest, ', ')}]::timestamptz[]) WITH ORDINALITY AS o(at, i)
     WHERE o.at IS NOT NULL ORDER BY o.at, o.i LIMIT 1`);
  return row === undefined ? undefined : TRACKED_ENTITIES[row.i - 1];
}

/** A page row as the change list answers it: the ledger's own columns out, `previous` in. */
function changeRecord(entity: AnyTrackedEntity, row: Record<string, unknown> & { id: number; revision: number }) {
  const { ackedRevision, pendingValues, ...record } = row;
  if (!entity.keyed) return record;
  const previous = previousValues({
    isNew: record['isNew'] === true,
    changedFields: (record['changedFields'] as string[] | undefined) ?? [],
    pendingValues,
    ackedRevision: Number(ackedRevision ?? 0),
  });
  return { ...record, previous };
}

async function channelIdOf(pool: Pool, name: string): Promise<number | null | undefined> {
  if (name === 'default') return null;
  const { rows } = await pool.query<{ id: number }>('SELECT id FROM channels WHERE name = $1', [name]);
  return rows[0]?.id;
}

/** The worker's hooks for change webhooks: produce batches, acknowledge the delivered ones. */
export function changeBatchHooks(batches: ChangeBatches): {
  produce: () => Promise<number>;
  beforeCompleted: (item: { payload: Record<string, unknown> }) => Promise<void>;
} {
  return {
    produce: () => batches.produce(),
    beforeCompleted: async (item) => {
      if (item.payload['event'] === CHANGES_EVENT) await batches.acknowledge(item.payload);
    },
  };
}
