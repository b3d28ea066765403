import { z } from 'zod';
import type { RestRoute } from '../rest/route-table';
import { MAX_IDS_PER_ACK, MAX_PRODUCTS_PER_REQUEST, productInput } from './product.input';

const productInputSchema = z.toJSONSchema(productInput, { target: 'openapi-3.0' }) as Record<string, unknown>;

const exampleRecord = {
  id: 42,
  externalId: 'SKU-1001',
  erpId: 1001,
  isNew: false,
  changedFields: ['price'],
  context: 'erp_sync',
  data: { name: 'Espresso cup', description: 'Porcelain, 80 ml', price: 7.5 },
  updatedAt: '2026-11-22T08:30:00.000Z',
};

export const productRoutes: RestRoute[] = [
  {
    field: 'Mutation.syncProducts',
    method: 'POST',
    path: '/v1/products',
    tag: 'Products',
    summary: 'Push products from the ERP',
    description:
      'Body: one product object, or {"products": [...]} with up to 5,000 products (more is 413). ' +
      'external_id is required (1-255 characters); erp_id (integer), name, description (strings) and price (number >= 0) are checked; ' +
      'every other field is kept in data and diffed too. Fields left out keep their stored value. ' +
      'Each record is validated alone: bad records are listed in errors ({index, external_id, field, message}) and the others are stored. ' +
      'An identical re-sync counts as neither created nor updated and creates no pending change. ' +
      'Optional query parameter or body field context labels the change (default "erp_sync").',
    singleItemArg: 'products',
    queryArgs: ['context'],
    bodyLists: {
      products: { maxItems: MAX_PRODUCTS_PER_REQUEST, items: { name: 'ProductInput', schema: productInputSchema } },
    },
    example: {
      request: { products: [{ external_id: 'SKU-1001', erp_id: 1001, name: 'Espresso cup', price: 7.5 }] },
      response: { success: true, processed: 1, created: 1, updated: 0, errors: [] },
    },
  },
  {
    field: 'Query.updatedProducts',
    method: 'GET',
    path: '/v1/updated-products',
    tag: 'Products',
    summary: 'Products with pending changes',
    description:
      'Records changed since their last acknowledgement, ordered by updatedAt then id. ' +
      'Acknowledge them with DELETE /api/v1/updated-products/{id} or POST /api/v1/updated-products/batch-delete; ' +
      'an acknowledgement covers the version listed here, so a change that arrives later is listed again.',
    paginated: true,
    example: {
      query: '?limit=50&offset=0',
      response: { payload: [exampleRecord], meta: { total: 1, limit: 50, offset: 0 } },
    },
  },
  {
    field: 'Mutation.acknowledgeProduct',
    method: 'DELETE',
    path: '/v1/updated-products/:id',
    tag: 'Products',
    summary: 'Acknowledge one product',
    description:
      'Marks the listed changes of one product as processed by the webshop. 404 when the id is unknown. Idempotent.',
    example: { response: { success: true, acknowledged: 1 } },
  },
  {
    field: 'Mutation.acknowledgeProducts',
    method: 'POST',
    path: '/v1/updated-products/batch-delete',
    tag: 'Products',
    summary: 'Acknowledge many products',
    description:
      'Body {"ids": [...]} with 1 to 1,000 ids (more is 413). acknowledged counts the known ids; unknown ids are listed in notFound.',
    bodyLists: { ids: { maxItems: MAX_IDS_PER_ACK } },
    example: { request: { ids: [42, 43, 99] }, response: { success: true, acknowledged: 2, notFound: [99] } },
  },
];
