/**
 * The live events the hub carries (src/events/hub.ts): their payloads are the hub's vocabulary,
 * declared here below the domains that publish them (failures, the delivery worker) and the
 * subscriptions that serve them, so the hub depends on none of those.
 */

/** The webhook payload of SPEC 6.2, plus `failure_id` (issue 32) so that a receiver can resolve the failure. */
export type SyncFailureEvent = {
  event: 'sync_failure';
  /** The stored failure: what `GET /api/v1/failures/{id}` and resolve take. */
  failure_id: number;
  entity_type: string;
  external_id: string | null;
  source: string;
  error_message: string;
  error_details: Array<{ field: string; message: string }>;
  failed_at: string;
};

export const OPERATIONAL_EVENT_NAMES = ['webhook.disabled', 'delivery.failed', 'delivery.recovered'] as const;

/**
 * What an operator is told live (the `operationalEvents` subscription): a configuration the
 * worker disabled, an item abandoned (no more retries), an item delivered after failed attempts.
 */
export type OperationalEvent = {
  event: (typeof OPERATIONAL_EVENT_NAMES)[number];
  at: string;
  webhookId: number | null;
  url: string | null;
  itemId: number | null;
  failureId: number | null;
  attempts: number | null;
  error: string | null;
  statusCode: number | null;
  failingSince: string | null;
  consecutiveFailedItems: number | null;
};
