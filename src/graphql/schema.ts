import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder';
import { guardArguments } from './argument-guard';
import './common-types';
// Each domain registers its types and root fields on the builder.
import '../products/product.schema';
import '../sale-orders/sale-order.schema';
import '../partners/partner.schema';
import '../pricelists/pricelist.schema';
import '../stocks/stock.schema';
import '../purchase-orders/purchase-order.schema';
import '../failures/failure.schema';
import '../failures/failure-events.schema';
import '../queue/queue.schema';
import '../webhooks/webhook.schema';
import '../webhooks/operational-events.schema';
import '../accounts/account.schema';
import '../auth/token.schema';
import '../channels/channel.schema';
import '../reconciliation/reconciliation.schema';
import '../history/history.schema';
import '../changes/pending-records.schema';

export const schema: GraphQLSchema = guardArguments(builder.toSchema());

/** What schema.graphql at the repository root holds. */
export const printedSchema = (): string => `${printSchema(lexicographicSortSchema(schema))}\n`;
