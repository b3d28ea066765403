import { gql } from '@urql/core';

import type { QUEUE_STATUSES } from './api';

/** The overview page's document: pending counts, open failures, queue stats, deliveries per minute. */

export type Overview = {
  pendingChanges: Record<'products' | 'partners' | 'saleOrders' | 'priceItems' | 'stocks' | 'purchaseOrders', number>;
  openFailureCounts: Array<{ entity_type: string; source: string; open: number }>;
  outboundQueueStats: Record<(typeof QUEUE_STATUSES)[number], number>;
  deliveriesPerMinute: Array<{ minute: string; delivered: number; failed: number }>;
};

export const OVERVIEW = gql`
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
    }
    deliveriesPerMinute(minutes: 15) {
      minute
      delivered
      failed
    }
  }
`;
