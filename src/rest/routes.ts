import { productRoutes } from '../products/product.routes';
import { accountRoutes } from '../accounts/account.routes';
import { channelRoutes } from '../channels/channel.routes';
import { failureRoutes } from '../failures/failure.routes';
import { historyRoutes } from '../history/history.routes';
import { partnerRoutes } from '../partners/partner.routes';
import { pricelistRoutes } from '../pricelists/pricelist.routes';
import { purchaseOrderRoutes } from '../purchase-orders/purchase-order.routes';
import { queueRoutes } from '../queue/queue.routes';
import { reconciliationRoutes } from '../reconciliation/reconciliation.routes';
import { saleOrderRoutes } from '../sale-orders/sale-order.routes';
import { stockRoutes } from '../stocks/stock.routes';
import { webhookRoutes } from '../webhooks/webhook.routes';
import type { RestRoute } from './route-table';

/** The REST contract, in the order the documents list it. */
export const restRoutes: readonly RestRoute[] = [
  ...productRoutes,
  ...pricelistRoutes,
  ...partnerRoutes,
  ...saleOrderRoutes,
  ...stockRoutes,
  ...purchaseOrderRoutes,
  ...reconciliationRoutes,
  ...historyRoutes,
  ...failureRoutes,
  ...queueRoutes,
  ...webhookRoutes,
  ...channelRoutes,
  ...accountRoutes,
];
