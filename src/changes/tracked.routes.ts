import { z } from 'zod';
import type { RestRoute } from '../routing/route-table';
import { capitalize, type TrackedEntity, type TrackedPush } from './tracked-entity';
import { MAX_IDS_PER_ACK } from './tracked.service';

type PushedEntity = Extract<TrackedEntity, { push: TrackedPush }>;
type FullEntity = PushedEntity & { operations: { ackOne: `acknowledge${string}` } };

/**
 * The four REST routes of an entity its descriptor says all of (ADR 0036): inbound sync, change
 * list, single and batch ack. `doc` is what only prose can say: the input's rules, what the list
 * adds, examples.
 */
export function trackedRoutes(
  entity: FullEntity,
  doc: {
    rules: string;
    listDescription?: string;
    example: { input: Record<string, unknown>; record: Record<string, unknown>; listQuery?: string };
  },
): RestRoute[] {
  const { noun, push, listPath, tag, operations } = entity;
  return [
    pushRoute(entity, {
      summary: `Push ${noun.many} from the ERP`,
      description:
        `Body: one ${noun.one} object, or {"${push.listArg}": [...]} with up to ${push.maxItems.toLocaleString('en')} ${noun.many} (more is 413). ` +
        `${doc.rules} Fields left out keep their stored value. ` +
        'Each record is validated alone: bad records are listed in errors ({index, external_id, field, message}) and the others are stored. ' +
        'A record is also rejected there when a string or field name anywhere in it holds a NUL character (\\u0000) or an unpaired surrogate, ' +
        'or a number is not finite; external_id is then null when it is the field at fault. ' +
        'An identical re-sync counts as neither created nor updated and creates no pending change. ' +
        'Optional query parameter or body field context labels the change (default "erp_sync"). ' +
        SOURCE_TIME_RULE +
        ' ' +
        DRY_RUN_RULE,
      example: { request: { [push.listArg]: [doc.example.input] }, response: SYNC_RESULT_EXAMPLE },
    }),
    changeListRoute(entity, {
      summary: `${capitalize(noun.many)} with pending changes`,
      description:
        `Records changed since their last acknowledgement, ordered by updatedAt then id. ${doc.listDescription ?? ''}` +
        `Acknowledge them with DELETE /api${listPath}/{id}?revision=N or POST /api${listPath}/batch-delete. ` +
        CHANGE_LIST_RULES,
      example: {
        query: doc.example.listQuery ?? '?limit=50&offset=0',
        response: { payload: [doc.example.record], meta: { total: 1, limit: 50, offset: 0 } },
      },
    }),
    {
      field: `Mutation.${operations.ackOne}`,
      method: 'DELETE',
      path: `${listPath}/:id`,
      tag,
      summary: `Acknowledge one ${noun.one}`,
      description:
        `Marks the changes of one ${noun.one} as processed by the webshop. ${ACK_RULE} ` +
        "404 when the id is unknown; 400 when revision is beyond the record's current one; 409 without revision for a record never listed to this client. Idempotent.",
      extraErrors: ['CONFLICT'],
      example: { query: '?revision=3', response: { success: true, acknowledged: 1 } },
    },
    batchAckRoute(entity, `Acknowledge many ${noun.many}`),
  ];
}

/**
 * POST of an entity's push: its field, path, list argument and input schema from the descriptor.
 * A bare object body is taken as a list of one unless `listOnly`.
 */
export function pushRoute(
  entity: PushedEntity,
  doc: Pick<RestRoute, 'summary' | 'description' | 'example'> & { listOnly?: boolean },
): RestRoute {
  const { push } = entity;
  const schema = z.toJSONSchema(push.input.schema, { target: 'openapi-3.0' }) as Record<string, unknown>;
  return {
    field: `Mutation.${entity.operations.sync}`,
    method: 'POST',
    path: push.path,
    tag: entity.tag,
    summary: doc.summary,
    description: doc.description,
    ...(doc.listOnly ? {} : { singleItemArg: push.listArg }),
    queryArgs: push.context ? ['context', 'dry_run'] : ['dry_run'],
    bodyLists: { [push.listArg]: { maxItems: push.maxItems, items: { name: push.input.name, schema } } },
    example: doc.example,
  };
}

/** GET of an entity's change list (paginated, SPEC 4.1). */
export function changeListRoute(entity: TrackedEntity, doc: Pick<RestRoute, 'summary' | 'description' | 'example'>): RestRoute {
  return {
    field: `Query.${entity.operations.list}`,
    method: 'GET',
    path: entity.listPath,
    tag: entity.tag,
    summary: doc.summary,
    description: doc.description,
    paginated: true,
    example: doc.example,
  };
}

/** The batch acknowledgement of a change list (SPEC 4.2): POST {listPath}/batch-delete. */
export function batchAckRoute(entity: TrackedEntity, summary: string): RestRoute {
  return {
    field: `Mutation.${entity.operations.ackMany}`,
    path: `${entity.listPath}/batch-delete`,
    tag: entity.tag,
    summary,
    method: 'POST',
    description:
      `Body {"ids": [...]} or {"items": [{"id": 42, "revision": 3}, ...]}, 1 to ${MAX_IDS_PER_ACK.toLocaleString('en')} of them (more is 413). ${ACK_RULE} ` +
      'acknowledged counts the records acknowledged; unknown ids are listed in notFound; ids without a revision that were never listed to this client in notListed (nothing of them is acknowledged). ' +
      "A revision beyond a record's current one is a 400 naming the item, and nothing is acknowledged.",
    bodyLists: { ids: { maxItems: MAX_IDS_PER_ACK }, items: { maxItems: MAX_IDS_PER_ACK } },
    example: {
      request: {
        items: [
          { id: 42, revision: 3 },
          { id: 43, revision: 1 },
          { id: 99, revision: 1 },
        ],
      },
      response: { success: true, acknowledged: 2, notFound: [99], notListed: [] },
    },
  };
}

/** Stale-push protection (ADR 0027), said once for every push. */
export const SOURCE_TIME_RULE =
  "Optional source_updated_at (ISO 8601 with a time zone) is the ERP's own write time of a record: a record older than the stored one is not applied " +
  '(skipped counts it, and errors lists it with code STALE naming both times); an equal or newer time applies; without it the record applies as always.';

/** Dry run (ADR 0028), said once for every push. */
export const DRY_RUN_RULE =
  'Query parameter dry_run=true runs the whole push and rolls it back: the usual answer with dryRun true plus records ' +
  '(per record index, external_id, action created|updated|unchanged|skipped|rejected, changedFields, previous; at most 1,000, recordsOmitted counts the rest). ' +
  'Nothing is stored, nothing becomes pending, and an Idempotency-Key is neither consumed nor replayed.';

export const SYNC_RESULT_EXAMPLE = {
  success: true,
  processed: 1,
  created: 1,
  updated: 0,
  skipped: 0,
  errors: [],
  dryRun: false,
  records: null,
  recordsOmitted: null,
};

/** What an acknowledgement covers (ADR 0002), said once for every route that takes one. */
export const ACK_RULE =
  'An acknowledgement with a revision covers that revision and nothing newer; one by id alone covers the revision last listed to the same API token ' +
  "(another token's listing never widens it), so a change that arrives later, or that only another client was shown, stays pending and is listed again.";

/** Whose ledger a lookup shows (ADR 0045), said once for every route that reads records outside the change lists. */
export const LOOKUP_CHANNEL_RULE =
  "Ledger fields (pending, isNew, isQuantityChanged, changedFields, previous) are those of the token's channel: a token bound to a channel reads that channel's acknowledgements, any other token channel default's.";

/** What every change list says of acknowledgements and of paging with since. */
export const CHANGE_LIST_RULES =
  `${ACK_RULE} Each record carries its revision for that purpose. ` +
  'Paging with since: updatedAt stamps follow commit order (a push that commits later always carries a later updatedAt, however long the transactions), ' +
  'so since = the newest updatedAt you have processed never skips a later commit. The records of one push share one updatedAt: ' +
  'after a full page pass since and after_id = the updatedAt and id of its last record (keyset paging); since alone is enough after a page that was not full. ' +
  'meta.total is exact, as of the same moment as the page. Without since it comes from pending counters the database keeps with every write, ' +
  'so a poll costs the same with 10 or 1,000,000 records pending; with since the matching records are counted, at a cost that grows with their number.';
