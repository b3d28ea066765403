import { z } from 'zod';
import type { SyncErrorShape } from './results';

/**
 * `source_updated_at`: the ERP's own write time of a record (ADR 0027). A push older than the
 * stored one is skipped and reported as STALE instead of overwriting a newer value; equal times
 * apply. Compared at millisecond precision (what the column keeps): finer digits are dropped
 * before comparing, so that a re-push of the same time is never taken for an older one.
 */
export const sourceUpdatedAtInput = z.iso
  .datetime({ offset: true, message: 'Must be an ISO 8601 date-time with a time zone (2026-11-22T08:30:00Z)' })
  .nullable()
  .optional();

/** The sent time as stored: whole milliseconds; undefined when not sent. */
export function toSourceTime(value: string | null | undefined): Date | undefined {
  if (value == null) return undefined;
  return new Date(Math.floor(Date.parse(value)));
}

/** True when `sent` is older than `stored` (both present): the record must not be applied. */
export function isStale(sent: Date | undefined, stored: Date | null | undefined): stored is Date {
  return sent !== undefined && stored != null && sent.getTime() < stored.getTime();
}

/** The STALE entry of a skipped record, naming both times. */
export function staleError(index: number, externalId: string | null, field: string, sent: Date, stored: Date): SyncErrorShape {
  return {
    index,
    external_id: externalId,
    field,
    code: 'STALE',
    message: `Not applied: source_updated_at ${sent.toISOString()} is older than the stored ${stored.toISOString()}`,
  };
}
