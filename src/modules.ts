import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './graphql/builder';
import { guardArguments } from './graphql/argument-guard';
import './changes/results.schema';
import type { RestRoute } from './routing/route-table';
import type { TrackedEntity } from './changes/tracked-entity';
import { productEntity } from './products/product.entity';
import { partnerEntity } from './partners/partner.entity';
import { saleOrderEntity } from './sale-orders/sale-order.entity';
import { purchaseOrderEntity } from './purchase-orders/purchase-order.entity';
import { priceItemEntity } from './pricelists/price-item.entity';
import { stockEntity } from './stocks/stock.entity';
// Each domain registers its GraphQL types and root fields on the builder when its schema loads.
import './products/product.schema';
import './sale-orders/sale-order.schema';
import './partners/partner.schema';
import './pricelists/pricelist.schema';
import './stocks/stock.schema';
import './purchase-orders/purchase-order.schema';
import './failures/failure.schema';
import './failures/failure-events.schema';
import './queue/queue.schema';
import './webhooks/webhook.schema';
import './webhooks/operational-events.schema';
import './accounts/account.schema';
import './accounts/token.schema';
import './channels/channel.schema';
import './reconciliation/reconciliation.schema';
import './history/history.schema';
import './channels/pending-records.schema';
import { productRoutes } from './products/product.routes';
import { pricelistRoutes } from './pricelists/pricelist.routes';
import { partnerRoutes } from './partners/partner.routes';
import { saleOrderRoutes } from './sale-orders/sale-order.routes';
import { stockRoutes } from './stocks/stock.routes';
import { purchaseOrderRoutes } from './purchase-orders/purchase-order.routes';
import { reconciliationRoutes } from './reconciliation/reconciliation.routes';
import { historyRoutes } from './history/history.routes';
import { failureRoutes } from './failures/failure.routes';
import { queueRoutes } from './queue/queue.routes';
import { webhookRoutes } from './webhooks/webhook.routes';
import { channelRoutes } from './channels/channel.routes';
import { accountRoutes } from './accounts/account.routes';

/**
 * The domains the service is made of, listed once, here at the top: their tracked entities, the one
 * GraphQL schema their types make and the REST contract their routes make. The edges below (graphql/, rest/, http/)
 * never list the domains: the app hands them this schema and this route table.
 */

/**
 * Each tracked entity's descriptor: its table's ledger entry (TRACKED_ENTITIES, in the same order)
 * and the API its domain declares on it (ADR 0036).
 */
export const trackedEntities = [
  productEntity,
  partnerEntity,
  saleOrderEntity,
  purchaseOrderEntity,
  priceItemEntity,
  stockEntity,
] as const satisfies readonly TrackedEntity[];

export const schema: GraphQLSchema = guardArguments(builder.toSchema());

/** What schema.graphql at the repository root holds. */
export const printedSchema = (): string => `${printSchema(lexicographicSortSchema(schema))}\n`;

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
