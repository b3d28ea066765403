import { z } from 'zod';
import { priceItemInput } from '../pricelists/pricelist.input';
import { purchaseOrderInput } from '../purchase-orders/purchase-order.input';
import { sourceUpdatedAtInput } from '../changes/source-time';

export const MAX_PRODUCTS_PER_REQUEST = 5000;

/**
 * The fields SPEC 2.7 names are checked; any other field the ERP sends is kept in `data`
 * and diffed like the named ones, except the nested collections that become records of their own.
 */
export const productInput = z.looseObject({
  external_id: z.string().min(1, 'Must not be empty').max(255, 'At most 255 characters'),
  erp_id: z.int32({ message: 'Must be an integer from -2147483648 to 2147483647' }).nullable().optional(),
  name: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  price: z.number().min(0, 'Must be 0 or more').nullable().optional(),
  /** The ERP's write time: an older push than the stored one is skipped (ADR 0027). Not kept in data. */
  source_updated_at: sourceUpdatedAtInput,
  /** Extracted into price items (not kept in data). */
  pricelists: z.array(priceItemInput, { message: 'Must be an array of price entries' }).optional(),
  /** Extracted into purchase orders and their lines (not kept in data). */
  purchase_orders: z.array(purchaseOrderInput, { message: 'Must be an array of purchase orders' }).optional(),
});

export type ProductInput = z.infer<typeof productInput>;
