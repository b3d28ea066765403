import { z } from 'zod';

// Year 0000 matches YYYY-MM-DD but is no date PostgreSQL accepts.
const isoDate = z.iso
  .date({ message: 'Must be a date YYYY-MM-DD' })
  .refine((v) => v >= '0001-01-01', { message: 'Must be 0001-01-01 or later' });

/** One entry of a product's `pricelists` array. The entry is complete: a date left out is none. */
export const priceItemInput = z
  .object({
    pricelist_external_id: z.string().min(1, 'Must not be empty').max(255, 'At most 255 characters'),
    pricelist_name: z.string().min(1, 'Must not be empty').max(255, 'At most 255 characters'),
    price: z.number().min(0, 'Must be 0 or more'),
    start_date: isoDate.nullable().optional(),
    end_date: isoDate.nullable().optional(),
  })
  .refine((item) => !item.start_date || !item.end_date || item.start_date <= item.end_date, {
    message: 'Must not be before start_date',
    path: ['end_date'],
  });

export type PriceItemInput = z.infer<typeof priceItemInput>;
