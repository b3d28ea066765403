import { graphql, type ResultOf } from './graphql';

/** The overview page's document: pending counts, open failures, queue stats, deliveries per minute. */

export const OVERVIEW = graphql(`
  query Overview {
    pendingChanges {
      products
      partners
      saleOrders
      priceItems
      stocks
      purchaseOrders
    }
    openFailureCounts {
      entity_type
      source
      open
    }
    outboundQueueStats {
      pending
      processing
      completed
      failed
      retrying
    }
    deliveriesPerMinute(minutes: 15) {
      minute
      delivered
      failed
      failedAttempts
    }
  }
`);

export type Overview = ResultOf<typeof OVERVIEW>;
