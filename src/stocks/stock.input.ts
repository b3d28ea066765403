import { z } from 'zod';
import { sourceUpdatedAtInput } from '../changes/source-time';

export const MAX_STOCKS_PER_REQUEST = 10_000;

const key = z.string().min(1, 'Must not be empty').max(255, 'At most 255 characters');
const price = z.number().min(0, 'Must be 0 or more').nullable().optional();

/** Prices left out keep their stored value; null clears them. Quantity may be negative (backorders). */
export const stockInput = z.object({
  supplier_external_id: key,
  product_external_id: key,
  quantity: z.number({ message: 'Must be a number' }),
  purchase_price: price,
  suggested_sale_price: price,
  /** The ERP's write time: an entry older than the stored one is skipped (ADR 0027). */
  source_updated_at: sourceUpdatedAtInput,
});

export type StockInput = z.infer<typeof stockInput>;
