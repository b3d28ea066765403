import { z } from 'zod';
import { sourceUpdatedAtInput } from '../changes/source-time';

export const MAX_PURCHASE_ORDERS_PER_REQUEST = 5000;

const isoDate = z.iso.date();
const isoTimestamp = z.iso.datetime({ offset: true });
const externalId = z.string().min(1, 'Must not be empty').max(255, 'At most 255 characters');

export const purchaseOrderLineInput = z.object({
  product_external_id: externalId,
  quantity: z.number({ message: 'Must be a number' }),
  price: z.number({ message: 'Must be a number' }).min(0, 'Must be 0 or more'),
});

/** Named fields are checked; any other field is kept in `data` and diffed. */
export const purchaseOrderInput = z.looseObject({
  external_id: externalId,
  /** The ERP's write time: an older push than the stored one is skipped (ADR 0027). Not kept in data. */
  source_updated_at: sourceUpdatedAtInput,
  erp_id: z.int32({ message: 'Must be an integer from -2147483648 to 2147483647' }).nullable().optional(),
  supplier_external_id: externalId,
  state: z.string().max(64).nullable().optional(),
  order_date: z
    .string()
    .refine((v) => isoDate.safeParse(v).success || isoTimestamp.safeParse(v).success, {
      message: 'Must be a date YYYY-MM-DD or an ISO 8601 timestamp',
    })
    .meta({ description: 'YYYY-MM-DD or an ISO 8601 timestamp' })
    .nullable()
    .optional(),
  lines: z.array(purchaseOrderLineInput, { message: 'Must be an array of lines' }),
});

export type PurchaseOrderInput = z.infer<typeof purchaseOrderInput>;
