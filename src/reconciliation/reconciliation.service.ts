import type { TrackedTableName } from '../changes/ledger';
import { channelPendingSql, oldestPendingSql, T } from '../changes/sql/fragments';
import { join, sql, trackedTable, trackedTableLiteral, type Sql } from '../changes/sql/sql';
import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import type { PrismaClient } from '../generated/prisma/client';
import type { StoreClients } from '../db/store';
import { AppError, validationFailed, type ErrorDetail } from '../errors/app-error';
import { replayRows } from '../changes/resync';
import { inTransaction } from '../changes/upsert';
import { DIGESTED_TYPES, ENTITY_TYPES, entityTypeOf, tableOfType, type EntityType } from './entity-types';
import { selectionOf } from './resync.service';

export const MAX_RECONCILE_ITEMS = 10_000;
const DIGEST = /^[0-9a-f]{64}$/i;

/**
 * The digest of a record's data (ADR 0029): SHA-256, as 64 lower-case hex digits, of the UTF-8
 * bytes of the RFC 8785 (JCS) canonical JSON of the `data` object as the change list showed it.
 */
export function dataDigest(data: unknown): string {
  return createHash('sha256').update(canonicalize(data), 'utf8').digest('hex');
}

export type EntitySummary = {
  entityType: string;
  records: number;
  pending: number;
  neverAcknowledged: number;
  oldestPendingAt: Date | null;
  oldestPendingAgeSeconds: number | null;
  lastPushAt: Date | null;
  lastAcknowledgedAt: Date | null;
};

/**
 * Per entity type, the state of the feed: one aggregate per table, all in one statement. On a
 * channel other than default (`channelId`), its own ledger: see channelSummarySql.
 */
export async function reconciliationSummary(
  prisma: PrismaClient,
  now = new Date(),
  channelId: number | null = null,
): Promise<{ entities: EntitySummary[] }> {
  const rows = await prisma.$queryRaw<
    Array<{
      entity_type: string;
      records: number;
      pending: number;
      never: number;
      oldest: Date | null;
      last_push: Date | null;
      last_ack: Date | null;
    }>
  >(
    join(
      ENTITY_TYPES.map((type) =>
        channelId === null
          ? sql`SELECT ${type}::text AS entity_type, count(*)::int AS records, (count(*) FILTER (WHERE pending))::int AS pending,
                  (count(*) FILTER (WHERE acked_revision = 0))::int AS never, min(updated_at) FILTER (WHERE pending) AS oldest,
                  max(updated_at) AS last_push, max(acknowledged_at) AS last_ack FROM ${trackedTable(tableOfType(type))}`
          : channelSummarySql(type, channelId),
      ),
      ' UNION ALL ',
    ),
  );
  return {
    entities: rows.map((r) => ({
      entityType: r.entity_type,
      records: r.records,
      pending: r.pending,
      neverAcknowledged: r.never,
      oldestPendingAt: r.oldest,
      oldestPendingAgeSeconds: r.oldest ? Math.max(0, Math.floor((now.getTime() - r.oldest.getTime()) / 1000)) : null,
      lastPushAt: r.last_push,
      lastAcknowledgedAt: r.last_ack,
    })),
  };
}

/**
 * One entity type's summary on the channel `channelId`: pending from its counters (O(1), ADR 0030), the
 * oldest pending change as the first record of its change list (an index scan that stops at the
 * first), never acknowledged = no acknowledgement of it on the channel beyond revision 0 (none, or
 * reset by a resync). A channel's acknowledgements keep no time: last_ack is null.
 */
function channelSummarySql(type: EntityType, channelId: number): Sql {
  const table = tableOfType(type);
  const t = trackedTable(table);
  return sql`SELECT ${type}::text AS entity_type, (SELECT count(*)::int FROM ${t}) AS records,
                 (SELECT COALESCE(sum(delta), 0)::int FROM channel_pending_deltas WHERE channel_id = ${channelId}::int AND table_name = ${trackedTableLiteral(table)}) AS pending,
                 (SELECT count(*)::int FROM ${t} AS t WHERE NOT EXISTS (SELECT 1 FROM channel_acks AS a
                   WHERE a.channel_id = ${channelId}::int AND a.table_name = ${trackedTableLiteral(table)} AND a.record_id = t.id AND a.acked_revision > 0)) AS never,
                 ${oldestPendingSql(table, channelId)} AS oldest,
                 (SELECT max(updated_at) FROM ${t}) AS last_push, NULL::timestamptz AS last_ack`;
}

export type ReconcileItem = { external_id: string; digest: string; field_digests?: unknown };

export type ReconcileRequest = {
  items: readonly ReconcileItem[];
  after?: string | null | undefined;
  to?: string | null | undefined;
  to_end?: boolean | null | undefined;
  resync?: boolean | null | undefined;
};

export type ReconcileResult = {
  compared: number;
  missing: string[];
  extra: string[];
  mismatched: Array<{ external_id: string; fields: string[] | null }>;
  pending: string[];
  resynced: number | null;
};

/**
 * Compares the webshop's view of one entity type with the middleware's (ADR 0029). missing:
 * acknowledged at least once here, in the range of external ids this call covers (byte order: after
 * `after`, else from the lowest id sent; up to `to`, else the highest sent, or without end with
 * to_end), but not sent; extra: sent but unknown here; mismatched: acknowledged
 * and not pending here, but the digest differs; pending: records with changes still to deliver,
 * not compared (their data is newer than what the webshop acknowledged). `resync` marks the
 * missing and mismatched ones pending again in the same call.
 */
export async function reconcile(
  db: StoreClients,
  entityTypeName: string,
  request: ReconcileRequest,
  channelId: number | null = null,
): Promise<ReconcileResult> {
  const { prisma } = db;
  const entityType = entityTypeOf(entityTypeName, 'entityType', DIGESTED_TYPES);
  const table = tableOfType(entityType);
  const items = checkItems(request.items);
  const sent = new Map(items.map((i) => [i.external_id, i]));
  const ids = [...sent.keys()];
  const sorted = [...ids].sort(compareBytes);
  const from = request.after ?? sorted[0]!;
  const lower = request.after != null ? sql`t.external_id COLLATE "C" > ${from}` : sql`t.external_id COLLATE "C" >= ${from}`;
  const to = request.to_end ? null : (request.to ?? sorted[sorted.length - 1]!);
  if (request.to_end && request.to != null) throw validationFailed([{ field: 'to_end', message: 'Give to or to_end, not both' }]);
  if (to !== null && compareBytes(from, to) > 0) throw validationFailed([{ field: 'after', message: 'Must be before to' }]);
  const ledger = ledgerOf(table, channelId);
  const sentIds = JSON.stringify(ids);
  const [stored, absent] = await Promise.all([
    prisma.$queryRaw<Array<{ external_id: string; data: Record<string, unknown>; pending: boolean }>>(sql`
      SELECT t.external_id, t.data, ${ledger.pending} AS pending FROM ${trackedTable(table)} AS t
        WHERE t.external_id IN (SELECT jsonb_array_elements_text(${sentIds}::jsonb))`),
    prisma.$queryRaw<Array<{ external_id: string }>>(sql`
      SELECT t.external_id FROM ${trackedTable(table)} AS t
        WHERE ${ledger.everAcknowledged} AND ${lower} AND (${to}::text IS NULL OR t.external_id COLLATE "C" <= ${to}::text)
          AND t.external_id NOT IN (SELECT jsonb_array_elements_text(${sentIds}::jsonb))
        ORDER BY t.external_id COLLATE "C" LIMIT ${MAX_RECONCILE_ITEMS}::int`),
  ]);
  const known = new Set(stored.map((r) => r.external_id));
  const result: ReconcileResult = {
    compared: 0,
    missing: absent.map((r) => r.external_id),
    extra: ids.filter((id) => !known.has(id)),
    mismatched: [],
    pending: [],
    resynced: null,
  };
  for (const row of stored) {
    if (row.pending) {
      result.pending.push(row.external_id);
      continue;
    }
    result.compared++;
    const item = sent.get(row.external_id)!;
    if (dataDigest(row.data) === item.digest.toLowerCase()) continue;
    result.mismatched.push({
      external_id: row.external_id,
      fields: item.field_digests ? differingFields(row.data, item.field_digests as Record<string, unknown>) : null,
    });
  }
  result.mismatched.sort((a, b) => compareBytes(a.external_id, b.external_id));
  result.pending.sort(compareBytes);
  if (request.resync) {
    const replay = [...result.missing, ...result.mismatched.map((m) => m.external_id)];
    const selection = selectionOf(entityType, { external_ids: replay });
    result.resynced = replay.length === 0 ? 0 : await inTransaction(db, (tx) => replayRows(tx, table, selection, channelId));
  }
  return result;
}

/**
 * What "pending" and "acknowledged at least once" are on the channel compared: the records' own
 * columns on default; on another channel its cursor and acknowledgements (ADR 0045).
 */
function ledgerOf(table: TrackedTableName, channelId: number | null): { pending: Sql; everAcknowledged: Sql } {
  if (channelId === null) return { pending: sql`(t.pending)`, everAcknowledged: sql`(t.acked_revision > 0)` };
  return {
    pending: channelPendingSql(table, T, channelId),
    everAcknowledged: sql`EXISTS (SELECT 1 FROM channel_acks AS a WHERE a.channel_id = ${channelId}::int AND a.table_name = ${trackedTableLiteral(table)} AND a.record_id = t.id AND a.acked_revision > 0)`,
  };
}

function checkItems(items: readonly ReconcileItem[]): readonly ReconcileItem[] {
  if (items.length > MAX_RECONCILE_ITEMS) {
    throw new AppError('PAYLOAD_TOO_LARGE', `At most ${MAX_RECONCILE_ITEMS} items per request; got ${items.length}`, [
      { field: 'items', message: `At most ${MAX_RECONCILE_ITEMS} items` },
    ]);
  }
  const details: ErrorDetail[] = [];
  if (items.length === 0) details.push({ field: 'items', message: 'Must list at least one item' });
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (!DIGEST.test(item.digest))
      details.push({ field: `items[${i}].digest`, message: 'Must be a SHA-256 digest: 64 hexadecimal digits' });
    if (seen.has(item.external_id)) details.push({ field: `items[${i}].external_id`, message: 'Listed twice' });
    seen.add(item.external_id);
    const digests = item.field_digests;
    if (digests != null && (typeof digests !== 'object' || Array.isArray(digests))) {
      details.push({ field: `items[${i}].field_digests`, message: 'Must be an object {field: digest}' });
      return;
    }
    for (const [name, digest] of Object.entries(digests ?? {})) {
      if (typeof digest !== 'string' || !DIGEST.test(digest)) {
        details.push({ field: `items[${i}].field_digests.${name}`, message: 'Must be a SHA-256 digest: 64 hexadecimal digits' });
      }
    }
  });
  if (details.length > 0) throw validationFailed(details);
  return items;
}

/** Fields whose digest (of the field's value alone) differs, or that only one side has. */
function differingFields(data: Record<string, unknown>, digests: Record<string, unknown>): string[] {
  const names = new Set([...Object.keys(data), ...Object.keys(digests)]);
  return [...names]
    .filter((name) => {
      const theirs = digests[name];
      if (!Object.hasOwn(data, name) || typeof theirs !== 'string') return true;
      return dataDigest(data[name]) !== theirs.toLowerCase();
    })
    .sort();
}

/** Byte order of the UTF-8 text (PostgreSQL's COLLATE "C"), not JavaScript's UTF-16 order. */
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
