import { z } from 'zod';
import {
  FailureEntityType as StoredFailureEntityType,
  FailureSource as StoredFailureSource,
  FailureStatus as StoredFailureStatus,
} from '../generated/prisma/enums';
import { AppError, validationFailed } from '../errors/app-error';
import { ROLE_MAY, type Role } from '../auth/roles';

/** The values of the database's enums (schema.prisma), in their order. */
export const FAILURE_ENTITY_TYPES = Object.values(StoredFailureEntityType);
export const FAILURE_SOURCES = Object.values(StoredFailureSource);
export const FAILURE_STATUSES = Object.values(StoredFailureStatus);
export const MAX_RAW_DATA_BYTES = 1024 * 1024;

export type FailureEntityType = StoredFailureEntityType;
export type FailureSource = StoredFailureSource;
export type FailureStatus = StoredFailureStatus;

/** SPEC 2.8 with the rules of the failures issue; types and enums are already checked by GraphQL. */
export const failureInput = z
  .object({
    entity_type: z.enum(FAILURE_ENTITY_TYPES),
    /** Optional for erp and webshop tokens, which report as themselves (reporterSource). */
    source: z.enum(StoredFailureSource).nullish(),
    external_id: z.string().min(1, 'Must not be empty').max(255, 'At most 255 characters').nullish(),
    middleware_id: z.int32({ message: 'Must be an integer up to 2147483647' }).positive('Must be a positive id').nullish(),
    error_message: z.string().min(1, 'Must not be empty').max(10_000, 'At most 10,000 characters'),
    error_details: z
      .array(z.object({ field: z.string().max(1_000), message: z.string().max(10_000) }))
      .max(1_000, 'At most 1,000 details')
      .nullish(),
    raw_data: z
      .record(z.string(), z.unknown())
      .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_RAW_DATA_BYTES, {
        message: `At most ${MAX_RAW_DATA_BYTES} bytes of JSON`,
      })
      .nullish(),
  })
  .refine((f) => f.external_id != null || f.middleware_id != null, {
    message: 'Give external_id, middleware_id or both',
    path: ['external_id'],
  });

export type FailureInput = z.infer<typeof failureInput>;

/**
 * The side a report comes from (ADR 0044). An erp or webshop token reports as itself: `source`
 * may be left out, and naming the other side is refused, since the webhook would then go back to
 * the reporter's own system as if the other side had sent it. Tokens of both sides (integration,
 * admin) must say which side they report for.
 */
export function reporterSource(role: Role | undefined, given: FailureSource | null | undefined): FailureSource {
  if (role === 'erp' || role === 'webshop') {
    if (given != null && given !== role) {
      throw new AppError(
        'FORBIDDEN',
        `A token with role ${role} reports failures with source ${role}, not ${given}. Role ${role} may ${ROLE_MAY[role]}.`,
      );
    }
    return role;
  }
  if (given == null)
    throw validationFailed([{ field: 'source', message: `Required for a token with role ${role ?? 'none'}: erp or webshop` }]);
  return given;
}

/** SPEC 6.1: the notification goes to the system opposite the reporter. */
export const directionFor = (source: FailureSource) => (source === 'erp' ? 'to_webshop' : 'to_erp');
