import createClient, { type Client } from 'openapi-fetch';
import { changeFeed, type FeedEntity, type FeedOptions, type FeedPage } from './feed';
import type { paths } from './openapi';
import { pushRecords, type PushEntity, type PushOptions, type SyncResult } from './push';
import { retryingFetch, type RetryOptions } from './retry';

export type { components, paths } from './openapi';
export { FEEDS, FeedError, type FeedEntity, type FeedOptions, type FeedPage, type FeedRecord } from './feed';
export { fileJournal, memoryJournal, type FeedJournal, type FeedState } from './journal';
export { PUSHES, PushError, type PushEntity, type PushOptions, type SyncResult } from './push';
export { retryAfterMs, type RetryOptions } from './retry';
export { verifyWebhook, WebhookVerificationError, type HeadersLike } from './webhooks';

export type ClientOptions = {
  /** Where the service is, e.g. http://127.0.0.1:4000. */
  baseUrl: string;
  /** An API token (`sync-gateway token create`). */
  token: string;
  /** How 429, 503, 5xx and lost connections are retried. */
  retry?: RetryOptions;
  /** The fetch to send with (default: the global one). */
  fetch?: typeof fetch;
};

export type SyncGatewayClient = {
  /** Every operation of the OpenAPI document, typed (openapi-fetch), with the retries above. */
  api: Client<paths>;
  /** The webshop's loop over one change list (see changeFeed). */
  feed<E extends FeedEntity>(entity: E, options?: FeedOptions): AsyncGenerator<FeedPage<E>, void, undefined>;
  /** The ERP's push of one batch, safe to retry (see pushRecords). */
  push(entity: PushEntity, records: readonly unknown[], options?: PushOptions): Promise<SyncResult>;
};

export function createSyncGatewayClient(options: ClientOptions): SyncGatewayClient {
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.token}` },
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.retry),
  });
  return {
    api,
    feed: (entity, feedOptions) => changeFeed(api, entity, feedOptions),
    push: (entity, records, pushOptions) => pushRecords(api, entity, records, pushOptions),
  };
}
