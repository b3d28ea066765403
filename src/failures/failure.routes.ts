import type { RestRoute } from '../routing/route-table';
import { MAX_RAW_DATA_BYTES } from './failure.input';

const exampleFailure = {
  id: 17,
  entity_type: 'product',
  external_id: 'SKU-1001',
  middleware_id: 42,
  source: 'webshop',
  error_message: 'Price must not be negative',
  error_details: [{ field: 'price', message: 'must be >= 0' }],
  status: 'open',
  hasRawData: true,
  createdAt: '2026-11-22T08:31:00.000Z',
  resolvedAt: null,
  resolvedBy: null,
  resolutionNote: null,
};

export const failureRoutes: RestRoute[] = [
  {
    field: 'Mutation.reportFailure',
    method: 'POST',
    path: '/v1/failures',
    tag: 'Failures',
    summary: 'Report a sync failure',
    description:
      'entity_type (product, partner, sale_order) and error_message are required; source (erp or webshop: the reporter) too for integration and admin tokens, ' +
      'while erp and webshop tokens report as themselves (source left out, or their own: the other side is a 403); ' +
      'at least one of external_id and middleware_id; error_details is an optional array of {field, message}; ' +
      `raw_data an optional object of up to ${MAX_RAW_DATA_BYTES} bytes. Any other field is a 400 naming it. ` +
      'The failure is stored open and, in the same transaction, one signed sync_failure webhook delivery is queued per active configuration ' +
      'of the entity type in the opposite direction (source erp → to_webshop, webshop → to_erp). Answers 201 {id, status, deliveries}. ' +
      'Deliveries are signed for Standard Webhooks receivers (`new Webhook(whsec_secret).verify(body, headers)` from standardwebhooks or svix; ' +
      'during a secret rotation webhook-signature carries a signature per valid secret) and X-Webhook-Signature (hex HMAC-SHA256 of the body; ' +
      "during a rotation's grace period keyed by the old secret, with X-Webhook-Signature-Next keyed by the new one). " +
      'They never go to loopback, link-local (cloud metadata), multicast or unspecified addresses unless WEBHOOK_ALLOWED_NETWORKS allows them, and never follow redirects; ' +
      'a refused delivery fails at once with lastError "blocked: <reason>".',
    strictBody: true,
    responseStatus: 201,
    location: '/v1/failures/:id',
    example: {
      request: {
        entity_type: 'product',
        external_id: 'SKU-1001',
        middleware_id: 42,
        source: 'webshop',
        error_message: 'Price must not be negative',
        error_details: [{ field: 'price', message: 'must be >= 0' }],
        raw_data: { sku: 'SKU-1001', price: -1 },
      },
      response: { id: 17, status: 'open', deliveries: 1 },
    },
  },
  {
    field: 'Query.failures',
    method: 'GET',
    path: '/v1/failures',
    tag: 'Failures',
    summary: 'List failures',
    description:
      'Newest first. Optional filters entity_type, status (open or resolved), source (erp or webshop) and since (reported after); limit (default 50, max 500) and offset. ' +
      'Items carry every field of SPEC 2.8 except raw_data; hasRawData says whether there is some (GET /api/v1/failures/{id} returns it).',
    example: { query: '?status=open&source=webshop', response: { payload: [exampleFailure], meta: { total: 1, limit: 50, offset: 0 } } },
  },
  {
    field: 'Query.failure',
    method: 'GET',
    path: '/v1/failures/:id',
    tag: 'Failures',
    summary: 'One failure in full',
    description: 'Every field, raw_data included. 404 for an unknown id.',
    example: { response: { ...exampleFailure, raw_data: { sku: 'SKU-1001', price: -1 } } },
  },
  {
    field: 'Mutation.resolveFailure',
    method: 'POST',
    path: '/v1/failures/:id/resolve',
    tag: 'Failures',
    summary: 'Resolve a failure by hand',
    description:
      'Optional body {"note": "..."}. Sets status resolved, resolvedAt and resolvedBy (the token name). Resolving twice is harmless: the first resolution stands. 404 for an unknown id.',
    strictBody: true,
    example: {
      request: { note: 'Fixed the price in the ERP' },
      response: {
        ...exampleFailure,
        status: 'resolved',
        resolvedAt: '2026-11-22T09:00:00.000Z',
        resolvedBy: 'ops',
        resolutionNote: 'Fixed the price in the ERP',
      },
    },
  },
  {
    field: 'Mutation.acknowledgeUpdate',
    method: 'POST',
    path: '/v1/updates/:entityType/:id/ack',
    tag: 'Failures',
    summary: 'Acknowledge a change and resolve its failures',
    description:
      'entityType is product, partner, sale_order or purchase_order; id the middleware id; optional body {"revision": N, "note": "..."}. ' +
      'Acknowledges the change record exactly like DELETE /api/v1/updated-…/{id}[?revision=N] (revision: the one processed, else the one last listed to this client) and, ' +
      'in the same transaction, resolves every open failure of that entity (same entity type and middleware_id, or same external_id). ' +
      '404 for an unknown record; 400 for an unknown entityType or a revision the record never reached; 409 when no revision is given and the record was never listed to this client.',
    strictBody: true,
    extraErrors: ['CONFLICT'],
    example: { request: { revision: 3, note: 'processed' }, response: { success: true, acknowledged: 1, resolvedFailures: 2 } },
  },
];
