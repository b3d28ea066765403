import type { EnumOf } from './graphql';

/** What the console's pages share: the enumerations of schema.graphql as lists for its menus. */

/**
 * Every value of a schema enum, in the order the console lists them: a value the schema lacks, or
 * one of the schema's values missing from the list, fails `npm run typecheck`.
 */
const allOf =
  <E extends string>() =>
  <const V extends readonly E[]>(values: V & ([Exclude<E, V[number]>] extends [never] ? unknown : { missing: Exclude<E, V[number]> })) =>
    values;

export const ENTITY_TYPES = allOf<EnumOf<'FailureEntityType'>>()(['product', 'partner', 'sale_order']);
export const SOURCES = allOf<EnumOf<'FailureSource'>>()(['erp', 'webshop']);
export const FAILURE_STATUSES = allOf<EnumOf<'FailureStatus'>>()(['open', 'resolved']);
export const QUEUE_STATUSES = allOf<EnumOf<'QueueStatus'>>()(['pending', 'processing', 'completed', 'failed']);
export const TOKEN_ROLES = allOf<EnumOf<'TokenRole'>>()(['webshop', 'erp', 'viewer', 'integration', 'admin']);

/** What each role may do, in a line (ADR 0044; the API reference lists the roles of every operation). */
export const ROLE_HINTS: Record<EnumOf<'TokenRole'>, string> = {
  erp: 'pushes records, reports failures as erp',
  webshop: 'lists and acknowledges the change lists, reports failures as webshop',
  viewer: 'reads only (dashboards); marks nothing as listed',
  integration: 'both sides, as tokens were before roles',
  admin: 'everything',
};

/** Roles whose token may be bound to a channel other than default (ADR 0045): the ones that read a feed alone. */
export const CHANNEL_ROLES: ReadonlyArray<EnumOf<'TokenRole'>> = ['webshop', 'viewer'];

export const CHANNEL_STARTS = allOf<EnumOf<'ChannelStart'>>()(['now', 'all']);

/** How a new channel starts, in a line (createChannel's `from`). */
export const CHANNEL_START_HINTS: Record<EnumOf<'ChannelStart'>, string> = {
  now: 'nothing is pending at first; the channel receives every later change (the shop already has the records)',
  all: 'every current record is pending as new: a full initial sync (a new, empty shop)',
};

export const DIRECTIONS = allOf<EnumOf<'WebhookDirection'>>()(['to_erp', 'to_webshop']);

/**
 * Every tracked entity type, as reconciliation lists them and resync takes them. GraphQL types
 * `entity_type` as a String, so the schema cannot hold this list to the server's: a test does
 * (test/admin/console-entity-types.test.ts, against TRACKED_ENTITIES).
 */
export const TRACKED_ENTITY_TYPES = ['product', 'partner', 'sale_order', 'purchase_order', 'price_item', 'stock'] as const;

/** `value` when it is one of `values` (a URL parameter, a menu's choice), else null. */
export function oneOf<T extends string>(values: readonly T[], value: string | null | undefined): T | null {
  return values.find((v) => v === value) ?? null;
}
