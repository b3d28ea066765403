import { randomUUID } from 'node:crypto';
import type { Client } from 'openapi-fetch';
import type { components, paths } from './openapi';

type Schemas = components['schemas'];

/** Each inbound push: its route and the body field that holds the batch. */
export const PUSHES = {
  product: { path: '/api/v1/products', field: 'products' },
  partner: { path: '/api/v1/partners', field: 'partners' },
  sale_order: { path: '/api/v1/sale-orders', field: 'sale_orders' },
  stock: { path: '/api/v1/stocks', field: 'stocks' },
  purchase_order: { path: '/api/v1/purchase-orders', field: 'purchase_orders' },
} as const satisfies Record<string, { path: keyof paths; field: string }>;

export type PushEntity = keyof typeof PUSHES;
export type SyncResult = Schemas['SyncResult'];

export type PushOptions = {
  /** Runs the push and rolls it back: the answer says what would happen (dry_run=true). */
  dryRun?: boolean;
  /** The key the retries share; a new UUID per call unless given (give your own to retry across restarts). */
  idempotencyKey?: string;
  signal?: AbortSignal;
};

/**
 * Sends one batch with an Idempotency-Key, so that the client's retries (a lost answer, a 503)
 * never apply it twice: the server answers a retry with the first answer. A batch with bad records
 * stores the good ones and names the bad in `errors`; that is a 200, not a failure.
 */
export async function pushRecords(
  api: Client<paths>,
  entity: PushEntity,
  records: readonly unknown[],
  options: PushOptions = {},
): Promise<SyncResult> {
  const { path, field } = PUSHES[entity];
  const { data, error, response } = await api.POST(path as '/api/v1/products', {
    body: { [field]: records } as never,
    params: {
      query: options.dryRun ? { dry_run: true } : {},
      header: { 'Idempotency-Key': options.idempotencyKey ?? randomUUID() },
    } as never,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (error || !data) throw new PushError(`POST ${path} answered ${response.status}`, response.status, error);
  return data as SyncResult;
}

export class PushError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`${message}: ${JSON.stringify(body)}`);
    this.name = 'PushError';
  }
}
