import type { FeedListing, FeedReader } from './ledger';
import { AppError } from '../errors/app-error';
import type { RequestContext } from '../graphql/context';

/**
 * Who reads a change list and acknowledges it: the API token or admin session of the request, on
 * its channel.
 * Listings are remembered per reader so that one client's acknowledgement never covers what
 * only another client was shown.
 */
export function readerOf(ctx: Pick<RequestContext, 'auth'>): FeedReader {
  if (!ctx.auth) throw new AppError('UNAUTHENTICATED', 'A bearer token is required');
  return { key: ctx.auth.key, channelId: ctx.auth.channelId };
}

/**
 * The channel whose ledger the caller reads (null: default): lookups and dashboards' lists show
 * its pending state, new and changed fields (ADR 0045).
 */
export function ledgerChannelOf(ctx: Pick<RequestContext, 'auth'>): number | null {
  return ctx.auth?.channelId ?? null;
}

/**
 * Who a change list marks as shown: the reader, except for a viewer's token, whose reads are never
 * listings (ADR 0044): a dashboard polling the feed must not widen what the webshop's ack covers.
 */
export function listingReaderOf(ctx: Pick<RequestContext, 'auth'>): FeedListing {
  const reader = readerOf(ctx);
  return ctx.auth?.role === 'viewer' ? { key: null, channelId: reader.channelId } : reader;
}
