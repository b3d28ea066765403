import type { StoreClients } from '../db/store';
import { DEFAULT_CHANNEL } from '../auth/token.service';
import { channelIdOf } from '../channels/channel.service';
import { AppError, validationFailed, type ErrorDetail } from '../errors/app-error';
import { countRows, replayRows, type ResyncSelection } from '../changes/resync';
import { join, sql, type Sql } from '../changes/sql/sql';
import { inTransaction } from '../changes/upsert';
import { entityTypeOf, tableOfType, type EntityType } from './entity-types';

export const MAX_RESYNC_IDS = 10_000;
const PARTNER_TYPES = ['B', 'C', 'D', 'O'];
const DIRECTIONS = ['inbound', 'outbound'];

export type ResyncRequest = {
  entity_type: string;
  external_ids?: readonly string[] | null | undefined;
  since?: Date | null | undefined;
  until?: Date | null | undefined;
  partner_type?: string | null | undefined;
  direction?: string | null | undefined;
  /** The channel to replay to (ADR 0045); default when left out. */
  channel?: string | null | undefined;
};

/**
 * Marks every matching record pending again with all its fields in changedFields (ADR 0029):
 * one statement per entity type, in one transaction. Stock entries and price items match
 * external_ids by their product_external_id. `preview` counts without writing.
 */
export async function resync(db: StoreClients, request: ResyncRequest, preview = false): Promise<{ resynced: number }> {
  const entityType = entityTypeOf(request.entity_type, 'entity_type');
  const selection = selectionOf(entityType, request);
  const table = tableOfType(entityType);
  const channelId = request.channel == null || request.channel === DEFAULT_CHANNEL ? null : await channelIdOf(db.prisma, request.channel);
  if (preview) return { resynced: await countRows(db.prisma, table, selection) };
  return { resynced: await inTransaction(db, (tx) => replayRows(tx, table, selection, channelId)) };
}

export function selectionOf(entityType: EntityType, request: Omit<ResyncRequest, 'entity_type'>): ResyncSelection {
  const details: ErrorDetail[] = [];
  const conditions: Sql[] = [sql`true`];
  const ids = request.external_ids;
  if (ids != null) {
    if (ids.length > MAX_RESYNC_IDS) {
      throw new AppError('PAYLOAD_TOO_LARGE', `At most ${MAX_RESYNC_IDS} external_ids per request; got ${ids.length}`, [
        { field: 'external_ids', message: `At most ${MAX_RESYNC_IDS} items` },
      ]);
    }
    if (ids.length === 0) details.push({ field: 'external_ids', message: 'Must list at least one id (leave it out for all records)' });
    const column = entityType === 'stock' || entityType === 'price_item' ? sql`t.product_external_id` : sql`t.external_id`;
    conditions.push(sql`${column} IN (SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`);
  }
  if (request.since && request.until && request.since > request.until) details.push({ field: 'since', message: 'Must not be after until' });
  if (request.since) conditions.push(sql`t.updated_at >= ${request.since.toISOString()}::timestamptz`);
  if (request.until) conditions.push(sql`t.updated_at <= ${request.until.toISOString()}::timestamptz`);
  if (request.partner_type != null) {
    if (entityType !== 'partner') details.push({ field: 'partner_type', message: 'Only with entity_type partner' });
    else if (!PARTNER_TYPES.includes(request.partner_type)) details.push({ field: 'partner_type', message: 'Must be one of B, C, D, O' });
    else conditions.push(sql`t.type = ${request.partner_type}::partner_type`);
  }
  if (request.direction != null) {
    if (entityType !== 'sale_order') details.push({ field: 'direction', message: 'Only with entity_type sale_order' });
    else if (!DIRECTIONS.includes(request.direction)) details.push({ field: 'direction', message: 'Must be inbound or outbound' });
    else conditions.push(sql`t.direction = ${request.direction}::sale_order_direction`);
  }
  if (details.length > 0) throw validationFailed(details);
  return { where: join(conditions, ' AND ') };
}
