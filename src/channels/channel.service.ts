import { z } from 'zod';
import type { PrismaClient } from '../generated/prisma/client';
import { AppError, notFound, validationFailed } from '../errors/app-error';
import { setChangesTarget } from '../webhooks/webhook.service';
import type { SecretBox } from '../deliveries/secret-box';
import { DEFAULT_BATCH_SIZE } from '../queue/change-batches';
import { DEFAULT_CHANNEL } from '../auth/token.service';
import { takeChangeClock } from '../changes/change-clock';
import type { SqlRunner } from '../changes/ledger';
import { TRACKED_ENTITIES, TRACKED_TABLES, type TrackedTableName } from '../changes/tracked-entities';
import { oldestPendingSql, pendingCountSql, scopeSql } from '../changes/sql/fragments';
import { sql, trackedTable, trackedTableLiteral } from '../changes/sql/sql';

/**
 * Channels (issue 31, ADR 0045): named consumers of the change feed, each with its own pending
 * state. Channel `default` is the records' own ledger and always exists; every other channel has a
 * row in `channels`, a cursor per tracked table and its acknowledgements (src/changes/channel-ledger.ts).
 */

export const CHANNEL_STARTS = ['now', 'all'] as const;
export type ChannelStart = (typeof CHANNEL_STARTS)[number];

/** A channel name: what a token is bound to and a URL segment, so plain. */
export const channelName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, '1 to 63 characters: lower-case letters, digits, - and _, starting with a letter or digit');

export type ChannelSummary = {
  /** Null for default, which has no row; null too once deleted (it then has no lag either). */
  id: number | null;
  name: string;
  /** now: started with nothing pending; all: every record pending as new. Null for default. */
  startedFrom: ChannelStart | null;
  createdAt: Date | null;
  /** Names of the tokens bound to it that are not revoked (of a deleted channel: the ones revoked). */
  tokens: string[];
  deleted?: boolean;
  /** Where its change records are pushed (ADR 0047); null: its tokens poll. */
  push: ChannelPush | null;
  /** The push target's `whsec_` secret, only in the answer that created it. */
  newSecret?: string;
};

export type ChannelPush = { url: string; batchSize: number; webhookId: number; active: boolean };

const pushOf = (config: { id: number; url: string; batchSize: number | null; active: boolean } | null | undefined): ChannelPush | null =>
  config ? { url: config.url, batchSize: config.batchSize ?? DEFAULT_BATCH_SIZE, webhookId: config.id, active: config.active } : null;

/**
 * Writers that take more than one clock take them in this order (change-clock.ts); creating a
 * channel takes them all, in the same order.
 */
const CLOCK_ORDER: readonly TrackedTableName[] = [
  'products',
  'price_items',
  'purchase_orders',
  ...TRACKED_TABLES.filter((t) => !['products', 'price_items', 'purchase_orders'].includes(t)),
];

/** The earliest position: a cursor there has every record above it. */
const BEGINNING = new Date(0);

/**
 * Creates a channel. It holds every table's change clock while it starts, so no push is half way
 * meanwhile: `now` sets each cursor at the newest committed record and records every record as
 * acknowledged at its current revision (what later `changedFields` and `previous` are measured
 * from); `all` starts the cursors at the beginning, so every record is pending for it as new.
 * Pushes wait for the clocks until it commits (a second per few hundred thousand records).
 */
export async function createChannel(prisma: PrismaClient, name: string, from: ChannelStart = 'now'): Promise<ChannelSummary> {
  const parsed = channelName.safeParse(name);
  if (!parsed.success) throw validationFailed([{ field: 'name', message: parsed.error.issues[0]!.message }]);
  if (!CHANNEL_STARTS.includes(from)) throw validationFailed([{ field: 'from', message: 'now or all' }]);
  if (name === DEFAULT_CHANNEL || (await prisma.channel.findUnique({ where: { name } }))) {
    throw new AppError('CONFLICT', `A channel named ${JSON.stringify(name)} already exists`);
  }
  const created = await prisma.$transaction(
    async (tx) => {
      const channel = await tx.channel.create({ data: { name, startedFrom: from } });
      for (const table of CLOCK_ORDER) await takeChangeClock(tx, table);
      for (const table of TRACKED_TABLES) await startCursor(tx, table, channel.id, from);
      return channel;
    },
    { timeout: 10 * 60_000, maxWait: 60_000 },
  );
  return { id: created.id, name: created.name, startedFrom: from, createdAt: created.createdAt, tokens: [], push: null };
}

async function startCursor(tx: SqlRunner, table: TrackedTableName, channelId: number, from: ChannelStart): Promise<void> {
  if (from === 'all') {
    await tx.$executeRaw(
      sql`INSERT INTO channel_cursors (channel_id, table_name, stamp, record_id) VALUES (${channelId}::int, ${trackedTableLiteral(table)}, ${BEGINNING}::timestamptz, 0)`,
    );
    await tx.$executeRaw(sql`
      INSERT INTO channel_pending_deltas (channel_id, table_name, scope, delta)
       SELECT ${channelId}::int, ${trackedTableLiteral(table)}, ${scopeSql(table)}, count(*) FROM ${trackedTable(table)} AS t GROUP BY 3`);
    return;
  }
  await tx.$executeRaw(sql`
    INSERT INTO channel_cursors (channel_id, table_name, stamp, record_id)
     SELECT ${channelId}::int, ${trackedTableLiteral(table)}, COALESCE(last.updated_at, ${BEGINNING}::timestamptz), COALESCE(last.id, 0)
       FROM (SELECT 1) AS one LEFT JOIN (SELECT updated_at, id FROM ${trackedTable(table)} ORDER BY updated_at DESC, id DESC LIMIT 1) AS last ON true`);
  await tx.$executeRaw(sql`
    INSERT INTO channel_acks (channel_id, table_name, record_id, acked_revision)
     SELECT ${channelId}::int, ${trackedTableLiteral(table)}, id, revision FROM ${trackedTable(table)}`);
}

/** Channel default first, then the others by name, each with its live tokens. */
export async function listChannels(prisma: PrismaClient): Promise<ChannelSummary[]> {
  const [channels, tokens, pushes] = await Promise.all([
    prisma.channel.findMany({ orderBy: { name: 'asc' } }),
    prisma.apiToken.findMany({ where: { revokedAt: null }, select: { name: true, channelId: true }, orderBy: { id: 'asc' } }),
    prisma.webhookConfig.findMany({ where: { kind: 'changes' } }),
  ]);
  const tokensOf = (id: number | null) => tokens.filter((t) => t.channelId === id).map((t) => t.name);
  const push = (id: number | null) => pushOf(pushes.find((p) => p.channelId === id));
  return [
    { id: null, name: DEFAULT_CHANNEL, startedFrom: null, createdAt: null, tokens: tokensOf(null), push: push(null) },
    ...channels.map((c) => ({
      id: c.id,
      name: c.name,
      startedFrom: c.startedFrom as ChannelStart,
      createdAt: c.createdAt,
      tokens: tokensOf(c.id),
      push: push(c.id),
    })),
  ];
}

/** The id of a channel other than default, or a 404. */
export async function channelIdOf(prisma: PrismaClient, name: string): Promise<number> {
  const row = await prisma.channel.findUnique({ where: { name } });
  if (!row) throw notFound('Channel', name);
  return row.id;
}

/** The channel a read names (null: default), for a caller not bound to one; a 404 for an unknown name. */
export async function namedChannel(prisma: PrismaClient, name: string | null): Promise<number | null> {
  return name === null || name === DEFAULT_CHANNEL ? null : channelIdOf(prisma, name);
}

/** A caller bound to channel `bound` reads that channel only: naming another is refused. */
export async function ownChannel(prisma: PrismaClient, bound: number, name: string | null): Promise<number> {
  if (name !== null && (await namedChannel(prisma, name).catch(() => undefined)) !== bound) {
    throw new AppError('FORBIDDEN', `This token reads its own channel only, not ${JSON.stringify(name)}`, [
      { field: 'channel', message: 'Not the channel of this token' },
    ]);
  }
  return bound;
}

/** The channel a read or comparison acts on: a bound caller's own (naming another is refused), else the one named (null: default). */
export function channelOfCaller(prisma: PrismaClient, bound: number | null, name: string | null): Promise<number | null> {
  return bound !== null ? ownChannel(prisma, bound, name) : namedChannel(prisma, name);
}

/**
 * Deletes a channel: its cursors, acknowledgements and counts go with it, and the tokens bound to
 * it are revoked in the same transaction (the caller ends their live streams). Channel default
 * cannot be deleted.
 */
export async function deleteChannel(prisma: PrismaClient, name: string): Promise<ChannelSummary> {
  if (name === DEFAULT_CHANNEL) throw new AppError('CONFLICT', 'Channel default always exists: it is the records’ own ledger');
  return prisma.$transaction(
    async (tx) => {
      const channel = await tx.channel.findUnique({ where: { name } });
      if (!channel) throw notFound('Channel', name);
      const bound = await tx.apiToken.findMany({ where: { channelId: channel.id, revokedAt: null }, select: { name: true } });
      await tx.apiToken.updateMany({ where: { channelId: channel.id, revokedAt: null }, data: { revokedAt: new Date() } });
      await tx.channel.delete({ where: { id: channel.id } });
      return {
        id: null,
        deleted: true,
        name,
        startedFrom: channel.startedFrom as ChannelStart,
        createdAt: channel.createdAt,
        tokens: bound.map((t) => t.name),
        push: null,
      };
    },
    { timeout: 10 * 60_000, maxWait: 60_000 },
  );
}

/** One channel by name, default included; a 404 for an unknown name. */
export async function channelNamed(prisma: PrismaClient, name: string): Promise<ChannelSummary> {
  const channel = (await listChannels(prisma)).find((c) => c.name === name);
  if (!channel) throw notFound('Channel', name);
  return channel;
}

/**
 * Turns push on for a channel (ADR 0047), default included: its change records go to `url` in
 * batches, each acknowledged by the endpoint's 2xx, and its tokens may no longer poll. On a channel
 * that pushes already, changes the URL or the batch size (the secret stays).
 */
export async function setChannelPush(
  prisma: PrismaClient,
  box: SecretBox,
  name: string,
  target: { url: string; batchSize?: number | undefined },
): Promise<ChannelSummary> {
  const channel = await channelNamed(prisma, name);
  const config = await setChangesTarget(prisma, box, channel.id, target);
  return { ...channel, push: pushOf(config), ...(config.newSecret ? { newSecret: config.newSecret } : {}) };
}

/**
 * Turns push off: its tokens poll again. A batch in flight is not delivered (its configuration is
 * gone) and its records stay pending.
 */
export async function stopChannelPush(prisma: PrismaClient, name: string): Promise<ChannelSummary> {
  const channel = await channelNamed(prisma, name);
  await prisma.webhookConfig.deleteMany({ where: { kind: 'changes', channelId: channel.id } });
  return { ...channel, push: null };
}

/** Per entity type: records pending and the age in seconds of the oldest pending change. */
export type ChannelLag = { entityType: string; pending: number; oldestPendingAgeSeconds: number | null };

/**
 * A channel's lag per entity type: the pending count (O(1), from the counters) and the oldest
 * pending change, the first record of its change list (an index scan that stops at the first).
 */
export async function channelLag(db: SqlRunner, channelId: number | null): Promise<ChannelLag[]> {
  const lags: ChannelLag[] = [];
  for (const entity of TRACKED_ENTITIES) {
    const table = entity.table;
    // The counters answer an unfiltered count (ADR 0030): pendingCountSql is never undefined here.
    const rows = await db.$queryRaw<Array<{ pending: number; oldest: Date | null }>>(sql`
      SELECT ${pendingCountSql(table, channelId, {})!} AS pending,
             ${oldestPendingSql(table, channelId)} AS oldest`);
    const { pending, oldest } = rows[0] ?? { pending: 0, oldest: null };
    lags.push({
      entityType: entity.entityType,
      pending,
      oldestPendingAgeSeconds: oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : null,
    });
  }
  return lags;
}
