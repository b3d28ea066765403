import type { z } from 'zod';
import type { PrismaClient } from '../generated/prisma/client';
import { AppError, notFound, validationFailed } from '../errors/app-error';
import { formatPath } from '../errors/zod-details';
import { unstorableDetails, unstorableText } from '../validation/storable';
import type { BatchAckResultShape, SyncErrorShape, SyncResultShape } from '../graphql/common-types';
import type { RecordOutcome } from './tracked-sync';
import { acknowledge, type TrackedTableName } from './tracked-table';

export const MAX_IDS_PER_ACK = 1000;
export const DEFAULT_CONTEXT = 'erp_sync';

/**
 * Validates each record of an inbound batch alone: the valid ones go on, the bad ones become
 * `{index, external_id, field, message}` errors (one per problem).
 */
export function validateBatch<Schema extends z.ZodType>(
  records: readonly unknown[],
  schema: Schema,
  options: { argName: string; maxItems: number },
): { valid: Array<{ index: number; value: z.infer<Schema> }>; errors: SyncErrorShape[] } {
  if (records.length > options.maxItems) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `At most ${options.maxItems} ${options.argName} per request; got ${records.length}`,
      [{ field: options.argName, message: `At most ${options.maxItems} items` }],
    );
  }
  const valid: Array<{ index: number; value: z.infer<Schema> }> = [];
  const errors: SyncErrorShape[] = [];
  records.forEach((raw, index) => {
    const prefix = `${options.argName}[${index}]`;
    // What the database cannot store (NUL, lone surrogates…) is refused here, record by record,
    // rather than failing the whole batch's transaction.
    const unstorable = unstorableDetails(raw, prefix);
    const parsed = schema.safeParse(raw);
    if (parsed.success && unstorable.length === 0) {
      valid.push({ index, value: parsed.data });
      return;
    }
    const externalId = (raw as { external_id?: unknown } | null)?.external_id;
    const problems = [
      ...unstorable,
      ...(parsed.error?.issues ?? []).map((issue) => ({ field: formatPath(issue.path, prefix), message: issue.message })),
    ];
    for (const { field, message } of problems) {
      errors.push({
        index,
        // An unstorable external id is not echoed back either.
        external_id: typeof externalId === 'string' && unstorableText(externalId) === undefined ? externalId : null,
        field,
        message,
      });
    }
  });
  return { valid, errors };
}

export function syncResult(outcomes: readonly RecordOutcome[], errors: SyncErrorShape[]): SyncResultShape {
  return {
    success: errors.length === 0,
    processed: outcomes.length,
    created: outcomes.filter((o) => o === 'created').length,
    updated: outcomes.filter((o) => o === 'updated').length,
    errors: [...errors].sort((a, b) => a.index - b.index),
  };
}

export async function acknowledgeOne(prisma: PrismaClient, table: TrackedTableName, label: string, id: number): Promise<void> {
  if ((await acknowledge(prisma, table, [id])).length === 0) throw notFound(label, id);
}

export async function acknowledgeMany(
  prisma: PrismaClient,
  table: TrackedTableName,
  ids: readonly number[],
): Promise<BatchAckResultShape> {
  if (ids.length > MAX_IDS_PER_ACK) {
    throw new AppError('PAYLOAD_TOO_LARGE', `At most ${MAX_IDS_PER_ACK} ids per request; got ${ids.length}`, [
      { field: 'ids', message: `At most ${MAX_IDS_PER_ACK} items` },
    ]);
  }
  if (ids.length === 0) throw validationFailed([{ field: 'ids', message: 'Must list at least one id' }]);
  const unique = [...new Set(ids)];
  const found = new Set((await acknowledge(prisma, table, unique)).map((row) => row.id));
  return { success: true, acknowledged: found.size, notFound: unique.filter((id) => !found.has(id)) };
}
