import type { OperationalEvent } from '../events/live-events';

export const HEALTH_STATES = ['healthy', 'failing', 'disabled'] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

export const DEFAULT_DISABLE_AFTER_HOURS = 120;

/** A configuration's health as operators see it (ADR 0022). */
export type EndpointHealth = {
  state: HealthState;
  lastSuccessAt: Date | null;
  failingSince: Date | null;
  consecutiveFailedItems: number;
  autoDisabledAt: Date | null;
};

export function healthOf(config: {
  active: boolean;
  lastSuccessAt: Date | null;
  failingSince: Date | null;
  consecutiveFailedItems: number;
  autoDisabledAt: Date | null;
}): EndpointHealth {
  const state: HealthState = !config.active ? 'disabled' : config.failingSince ? 'failing' : 'healthy';
  const { lastSuccessAt, failingSince, consecutiveFailedItems, autoDisabledAt } = config;
  return { state, lastSuccessAt, failingSince, consecutiveFailedItems, autoDisabledAt };
}

type ItemRow = {
  item_id: number;
  webhook_id: number | null;
  url: string | null;
  failure_id: number | null;
  status: string;
  attempts: number;
  error: string | null;
  status_code: number | null;
  at: string;
};
type DisabledRow = { webhook_id: number; url: string; failing_since: string; consecutive_failed_items: number };

/** What the result statement (`recordResults`) returns of a batch for its operational events. */
export type BatchEventRows = { disabled: DisabledRow[]; items: ItemRow[] };

/**
 * The operational events of a written batch: its abandoned items (`delivery.failed`), items
 * completed after more than one attempt (`delivery.recovered`) and the configurations the batch
 * disabled (`webhook.disabled`, at `now`).
 */
export function operationalEventsOf(row: BatchEventRows, now: Date): OperationalEvent[] {
  const at = now.toISOString();
  const none = {
    itemId: null,
    failureId: null,
    attempts: null,
    error: null,
    statusCode: null,
    failingSince: null,
    consecutiveFailedItems: null,
  };
  const itemEvents = row.items.map((i): OperationalEvent => ({
    ...none,
    event: i.status === 'failed' ? 'delivery.failed' : 'delivery.recovered',
    at: new Date(i.at).toISOString(),
    webhookId: i.webhook_id,
    url: i.url,
    itemId: i.item_id,
    failureId: i.failure_id,
    attempts: i.attempts,
    ...(i.status === 'failed' ? { error: i.error, statusCode: i.status_code } : {}),
  }));
  const disabledEvents = row.disabled.map((d): OperationalEvent => ({
    ...none,
    event: 'webhook.disabled',
    at,
    webhookId: d.webhook_id,
    url: d.url,
    failingSince: new Date(d.failing_since).toISOString(),
    consecutiveFailedItems: d.consecutive_failed_items,
    error: `no successful delivery since ${new Date(d.failing_since).toISOString()}`,
  }));
  return [...itemEvents, ...disabledEvents];
}
