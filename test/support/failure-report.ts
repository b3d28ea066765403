/** The body of a failure report (POST /api/v1/failures): a webshop's price failure of SKU-1, with `overrides`. */
export const failureReport = (overrides: Record<string, unknown> = {}) => ({
  entity_type: 'product',
  external_id: 'SKU-1',
  source: 'webshop',
  error_message: 'Price must not be negative',
  ...overrides,
});
