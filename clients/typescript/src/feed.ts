import type { Client } from 'openapi-fetch';
import type { components, paths } from './openapi';
import { memoryJournal, type FeedJournal, type FeedState } from './journal';
import { sleep } from './retry';

type Schemas = components['schemas'];

/** Each change list: its route, its acknowledgement route and the shape of its records. */
export const FEEDS = {
  product: { list: '/api/v1/updated-products', ack: '/api/v1/updated-products/batch-delete' },
  partner: { list: '/api/v1/updated-partners', ack: '/api/v1/updated-partners/batch-delete' },
  sale_order: { list: '/api/v1/updated-sale-orders', ack: '/api/v1/updated-sale-orders/batch-delete' },
  price_item: { list: '/api/v1/pricelists/updated', ack: '/api/v1/pricelists/updated/batch-delete' },
  stock: { list: '/api/v1/stocks/changed', ack: '/api/v1/stocks/changed/batch-delete' },
  purchase_order: { list: '/api/v1/purchase-orders/updated', ack: '/api/v1/purchase-orders/updated/batch-delete' },
} as const satisfies Record<string, { list: keyof paths; ack: keyof paths }>;

export type FeedEntity = keyof typeof FEEDS;

export type FeedRecordOf = {
  product: Schemas['ProductChangePage']['payload'][number];
  partner: Schemas['PartnerChangePage']['payload'][number];
  sale_order: Schemas['SaleOrderChangePage']['payload'][number];
  price_item: Schemas['PriceItemPage']['payload'][number];
  stock: Schemas['StockPage']['payload'][number];
  purchase_order: Schemas['PurchaseOrderChangePage']['payload'][number];
};

/** A change record as the feed hands it out. */
export type FeedRecord<E extends FeedEntity> = FeedRecordOf[E] & {
  /**
   * True when this very revision was handed out before a restart and its acknowledgement was never
   * answered: the application may have applied it already. Apply idempotently, or skip it if your
   * own store shows this revision applied.
   */
  possiblyApplied: boolean;
};

export type FeedPage<E extends FeedEntity> = {
  records: Array<FeedRecord<E>>;
  /** Records pending in all (meta.total), as of this page. */
  total: number;
  /** Acknowledges exactly the revisions of this page (never a later change of the same records). */
  ack(): Promise<void>;
};

export type FeedOptions = {
  /** Records per page (1 to 500; default 100). */
  limit?: number;
  /** Wait between polls when nothing is pending, in ms (default 2,000). */
  pollIntervalMs?: number;
  /** End the loop when nothing is pending instead of polling on (batch jobs, tests). */
  stopWhenEmpty?: boolean;
  /** Where the loop keeps its position and its unanswered acknowledgements (default: memory). */
  journal?: FeedJournal;
  signal?: AbortSignal;
};

type Entry = { id: number; revision: number; updatedAt: string };
const keyOf = (r: Entry) => `${r.id}@${r.revision}`;

/**
 * The webshop's loop over one change list: `for await (const page of feed) { apply; await page.ack() }`.
 *
 * A pass pages with `since`/`after_id` (the last record's updatedAt and id), which never skips a
 * later commit; a page that is not full ends the pass, and the next one starts from the oldest
 * pending record again, so a record whose acknowledgement failed is handed out again rather than
 * left behind. Acknowledgements name each record's revision: a change that arrived after the
 * page was listed stays pending. Before a page is handed out its revisions are written to the
 * journal; after its acknowledgement is answered they are cleared. A crash in between leaves them
 * pending on the server and listed in the journal, so after a restart they come back marked
 * `possiblyApplied`.
 */
export async function* changeFeed<E extends FeedEntity>(
  api: Client<paths>,
  entity: E,
  options: FeedOptions = {},
): AsyncGenerator<FeedPage<E>, void, undefined> {
  const limit = options.limit ?? 100;
  const journal = options.journal ?? memoryJournal();
  const restored: FeedState = (await journal.read(entity)) ?? { unacknowledged: [] };
  const suspects = new Set(restored.unacknowledged);
  let cursor = restored.checkpoint;
  const { list, ack } = FEEDS[entity];
  while (!options.signal?.aborted) {
    const query = { limit, ...(cursor ?? {}) };
    // One route per call site keeps openapi-fetch's typing; all six answer {payload, meta}.
    const { data, error } = await api.GET(list as '/api/v1/updated-products', {
      params: { query },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (error || !data) throw new FeedError(`GET ${list} failed`, error);
    const page = data as unknown as { payload: Array<FeedRecordOf[E] & Entry>; meta: { total: number } };
    if (page.payload.length === 0) {
      if (cursor) {
        cursor = undefined; // end of the pass: the next one starts from the oldest pending record
        continue;
      }
      if (options.stopWhenEmpty) return;
      await sleep(options.pollIntervalMs ?? 2_000, options.signal);
      continue;
    }
    const last = page.payload[page.payload.length - 1]!;
    const next = page.payload.length < limit ? undefined : { since: last.updatedAt, after_id: last.id };
    const keys = page.payload.map(keyOf);
    // From here the application may apply these revisions: a restart must know they were handed out.
    await journal.write(entity, { checkpoint: cursor, unacknowledged: keys });
    const from = cursor;
    let acknowledged = false;
    yield {
      records: page.payload.map((r) => ({ ...r, possiblyApplied: suspects.has(keyOf(r)) })),
      total: page.meta.total,
      ack: async () => {
        if (acknowledged) return;
        const items = page.payload.map((r) => ({ id: r.id, revision: r.revision }));
        const answer = await api.POST(ack as '/api/v1/updated-products/batch-delete', { body: { items } });
        if (answer.error || !answer.data) throw new FeedError(`POST ${ack} failed`, answer.error);
        acknowledged = true;
        for (const key of keys) suspects.delete(key);
        await journal.write(entity, { checkpoint: next ?? from, unacknowledged: [] });
      },
    };
    cursor = next;
  }
}

export class FeedError extends Error {
  constructor(
    message: string,
    readonly body: unknown,
  ) {
    super(`${message}: ${JSON.stringify(body)}`);
    this.name = 'FeedError';
  }
}
