import { z } from 'zod';
import { sourceUpdatedAtInput } from '../changes/source-time';

export const MAX_SALE_ORDERS_PER_REQUEST = 5000;
export const SALE_ORDER_DIRECTIONS = ['inbound', 'outbound'] as const;
export type SaleOrderDirection = (typeof SALE_ORDER_DIRECTIONS)[number];

/** Named fields are checked; any other field is kept in `data` and diffed like them. */
export const saleOrderInput = z.looseObject({
  external_id: z.string().min(1, 'Must not be empty').max(255, 'At most 255 characters'),
  /** The ERP's write time: an older push than the stored one is skipped (ADR 0027). Not kept in data. */
  source_updated_at: sourceUpdatedAtInput,
  erp_id: z.int32({ message: 'Must be an integer from -2147483648 to 2147483647' }).nullable().optional(),
  direction: z.enum(SALE_ORDER_DIRECTIONS, { message: 'Must be inbound (from the ERP) or outbound (to the ERP)' }),
  partner_external_id: z.string().min(1).max(255).nullable().optional(),
  lines: z.array(z.looseObject({}), { message: 'Must be an array of objects' }).optional(),
});
