/** What the console's pages share: the page envelope and the enumerations (see schema.graphql). */

export type Page<T> = { payload: T[]; meta: { total: number; limit: number; offset: number } };

export const ENTITY_TYPES = ['product', 'partner', 'sale_order'] as const;
export const SOURCES = ['erp', 'webshop'] as const;
export const QUEUE_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export const DIRECTIONS = ['to_erp', 'to_webshop'] as const;
