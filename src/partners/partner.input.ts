import { z } from 'zod';
import { sourceUpdatedAtInput } from '../changes/source-time';

export const MAX_PARTNERS_PER_REQUEST = 5000;
export const PARTNER_TYPES = ['B', 'C', 'D', 'O'] as const;

/** Named fields are checked; any other field (name, address…) is kept in `data` and diffed. */
export const partnerInput = z.looseObject({
  external_id: z.string().min(1, 'Must not be empty').max(255, 'At most 255 characters'),
  /** The ERP's write time: an older push than the stored one is skipped (ADR 0027). Not kept in data. */
  source_updated_at: sourceUpdatedAtInput,
  erp_id: z.int32({ message: 'Must be an integer from -2147483648 to 2147483647' }).nullable().optional(),
  name: z.string().nullable().optional(),
  type: z
    .enum(PARTNER_TYPES, { message: 'Must be B (billing), C (contact), D (delivery) or O (anonymous shipment)' })
    .nullable()
    .optional(),
  parent_external_id: z.string().min(1).max(255).nullable().optional(),
});
