import {
  getNamedType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../changes/page';
import { MAX_DRY_RUN_RECORDS } from '../changes/tracked.service';
import { TRACKED_ENTITIES } from '../changes/tracked-entities';
import { DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT } from '../history/history.service';
import { MAX_RATE_MINUTES } from '../queue/queue.service';
import { MAX_RECONCILE_ITEMS } from '../reconciliation/reconciliation.service';
import { MAX_STOCKS_PER_REQUEST } from '../stocks/stock.input';

/**
 * How many items each list field of the schema may hold, for the node bound (ADR 0043), in the
 * vocabulary of the GraphQL cost directives (`@listSize`):
 * - `sliced`: an argument of the field (`limit`, `minutes`) sets it, with a default and a maximum
 *   the service enforces (it clamps or refuses beyond). On a page (`{payload, meta}`) the argument
 *   sizes the page's `payload`.
 * - `page-items`: the list of a page, sized by the field that returned the page.
 * - `assumed`: no argument bounds it. `exact` when the service caps it (batch answers, an attempt
 *   log); otherwise an estimate of a large real list (a product's price items), which a longer
 *   list does not break: the answer is still bounded by MAX_RESPONSE_BYTES.
 */
export type ListSize =
  | { kind: 'sliced'; argument: string; default: number; max: number }
  | { kind: 'page-items' }
  | { kind: 'assumed'; size: number; exact: boolean };

const PAGE: ListSize = { kind: 'sliced', argument: 'limit', default: DEFAULT_LIMIT, max: MAX_LIMIT };
const HISTORY: ListSize = { kind: 'sliced', argument: 'limit', default: DEFAULT_HISTORY_LIMIT, max: MAX_HISTORY_LIMIT };
const estimate = (size: number): ListSize => ({ kind: 'assumed', size, exact: false });
const capped = (size: number): ListSize => ({ kind: 'assumed', size, exact: true });

/**
 * Lists that no `limit` argument bounds, by field coordinate, or by field name on every type (no
 * dot). A new list field of an object type must be added here or get a `limit`: the server does
 * not start otherwise (`listSizes` throws), so no list escapes the bound unnoticed.
 */
const DECLARED: Record<string, ListSize> = {
  'Query.deliveriesPerMinute': { kind: 'sliced', argument: 'minutes', default: 15, max: MAX_RATE_MINUTES },
  'Query.history': HISTORY,
  history: HISTORY, // history(limit) on every record type
  'RecordHistory.entries': { kind: 'page-items' },
  // One item per pricelist, per supplier, per child partner, per order line: estimates.
  'Product.priceItems': estimate(20),
  'Product.stock': estimate(20),
  'Partner.children': estimate(20),
  'PurchaseOrder.lines': estimate(50),
  // The fields of one change; a record has a few dozen at most in practice.
  'HistoryEntry.changes': estimate(20),
  // At most 1,000 per failure by input validation, a handful in practice.
  error_details: estimate(10),
  // At most 100 (MAX_LISTED_ATTEMPTS); six per delivery schedule, more only after retries.
  'OutboundQueueItem.attemptLog': estimate(10),
  // Batch answers: at most one entry per record sent.
  'SyncResult.errors': capped(MAX_STOCKS_PER_REQUEST),
  'SyncResult.records': capped(MAX_DRY_RUN_RECORDS),
  'ReconcileResult.mismatched': capped(MAX_RECONCILE_ITEMS),
  // Fixed: 6 entity types; 3 entity types × 2 sources.
  'ReconciliationSummary.entities': capped(6),
  'Query.openFailureCounts': capped(6),
  // Operator-managed lists, tens of entries.
  'Query.adminAccounts': estimate(100),
  'Query.apiTokens': estimate(100),
  'Query.channels': estimate(100),
  'Channel.lag': capped(TRACKED_ENTITIES.length),
  'Query.webhookConfigs': estimate(100),
  'Query.webhookDeliveryStats': estimate(100), // one per configuration
};

/** The arguments that size a list (the `sliced` rules'): a count depends on their values only. */
export const SIZING_ARGUMENTS: ReadonlySet<string> = new Set(
  [PAGE, ...Object.values(DECLARED)].flatMap((size) => (size.kind === 'sliced' ? [size.argument] : [])),
);

/** Where a list field's size comes from; undefined for a field that is neither a list nor a page. */
export type ListSizes = (parent: GraphQLNamedType, field: GraphQLField<unknown, unknown>) => ListSize | undefined;

/**
 * The size rule of every field of `schema` that returns a list of objects or a page, checked once:
 * throws naming the list fields no rule covers and the pages no argument sizes.
 */
export function listSizes(schema: GraphQLSchema): ListSizes {
  const rules = new Map<string, ListSize>();
  const problems: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    for (const field of Object.values(type.getFields())) {
      const coordinate = `${type.name}.${field.name}`;
      const rule = ruleFor(type.name, field);
      if (rule) rules.set(coordinate, rule);
      else if (isObjectList(field.type)) problems.push(`${coordinate} (a list without a size: add it to DECLARED in list-sizes.ts)`);
      const page = getNamedType(field.type);
      if (isPage(page) && rule?.kind !== 'sliced') problems.push(`${coordinate} (returns the page ${page.name} without a limit argument)`);
    }
  }
  if (problems.length > 0) throw new Error(`Lists the node bound cannot size:\n  ${problems.join('\n  ')}`);
  return (parent, field) => rules.get(`${parent.name}.${field.name}`);
}

function ruleFor(typeName: string, field: GraphQLField<unknown, unknown>): ListSize | undefined {
  const declared = DECLARED[`${typeName}.${field.name}`] ?? DECLARED[field.name];
  if (declared) return declared;
  if (!isCompositeType(getNamedType(field.type))) return undefined;
  if (field.args.some((a) => a.name === 'limit')) return PAGE;
  if (field.name === 'payload' && isObjectList(field.type)) return { kind: 'page-items' };
  return undefined;
}

const unwrapNonNull = (type: GraphQLType): GraphQLType => (isNonNullType(type) ? type.ofType : type);

export function isListField(field: GraphQLField<unknown, unknown>): boolean {
  return isListType(unwrapNonNull(field.type));
}

function isObjectList(type: GraphQLType): boolean {
  return isListType(unwrapNonNull(type)) && isCompositeType(getNamedType(type));
}

/** `{payload: [...], meta}`, or a type whose list another field sizes (RecordHistory). */
function isPage(type: GraphQLNamedType): boolean {
  if (!isObjectType(type)) return false;
  return Object.values(type.getFields()).some((f) => (DECLARED[`${type.name}.${f.name}`] ?? ruleFor(type.name, f))?.kind === 'page-items');
}
