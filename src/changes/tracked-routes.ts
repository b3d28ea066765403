import { z } from 'zod';
import type { RestRoute } from '../rest/route-table';
import { MAX_IDS_PER_ACK } from './tracked-service';

/**
 * The four REST routes of a tracked entity: inbound sync, change list, single and batch ack.
 * Field names are those registered by registerTrackedOperations and the entity's list query.
 */
export function trackedRoutes(o: {
  tag: string;
  /** "product", "sale order" */
  noun: string;
  plural: string;
  fields: { sync: string; list: string; ackOne: string; ackMany: string };
  syncPath: string;
  updatedPath: string;
  listArg: string;
  maxItems: number;
  input: { name: string; schema: z.ZodType; rules: string };
  listDescription?: string;
  example: { input: Record<string, unknown>; record: Record<string, unknown>; listQuery?: string };
}): RestRoute[] {
  const inputSchema = z.toJSONSchema(o.input.schema, { target: 'openapi-3.0' }) as Record<string, unknown>;
  return [
    {
      field: `Mutation.${o.fields.sync}`,
      method: 'POST',
      path: o.syncPath,
      tag: o.tag,
      summary: `Push ${o.plural} from the ERP`,
      description:
        `Body: one ${o.noun} object, or {"${o.listArg}": [...]} with up to ${o.maxItems.toLocaleString('en')} ${o.plural} (more is 413). ` +
        `${o.input.rules} Fields left out keep their stored value. ` +
        'Each record is validated alone: bad records are listed in errors ({index, external_id, field, message}) and the others are stored. ' +
        'A record is also rejected there when a string or field name anywhere in it holds a NUL character (\\u0000) or an unpaired surrogate, ' +
        'or a number is not finite; external_id is then null when it is the field at fault. ' +
        'An identical re-sync counts as neither created nor updated and creates no pending change. ' +
        'Optional query parameter or body field context labels the change (default "erp_sync").',
      singleItemArg: o.listArg,
      queryArgs: ['context'],
      bodyLists: { [o.listArg]: { maxItems: o.maxItems, items: { name: o.input.name, schema: inputSchema } } },
      example: {
        request: { [o.listArg]: [o.example.input] },
        response: { success: true, processed: 1, created: 1, updated: 0, errors: [] },
      },
    },
    {
      field: `Query.${o.fields.list}`,
      method: 'GET',
      path: o.updatedPath,
      tag: o.tag,
      summary: `${capitalize(o.plural)} with pending changes`,
      description:
        `Records changed since their last acknowledgement, ordered by updatedAt then id. ${o.listDescription ?? ''}` +
        `Acknowledge them with DELETE /api${o.updatedPath}/{id} or POST /api${o.updatedPath}/batch-delete; ` +
        'an acknowledgement covers the version listed here, so a change that arrives later is listed again.',
      paginated: true,
      example: {
        query: o.example.listQuery ?? '?limit=50&offset=0',
        response: { payload: [o.example.record], meta: { total: 1, limit: 50, offset: 0 } },
      },
    },
    {
      field: `Mutation.${o.fields.ackOne}`,
      method: 'DELETE',
      path: `${o.updatedPath}/:id`,
      tag: o.tag,
      summary: `Acknowledge one ${o.noun}`,
      description: `Marks the listed changes of one ${o.noun} as processed by the webshop. 404 when the id is unknown. Idempotent.`,
      example: { response: { success: true, acknowledged: 1 } },
    },
    {
      field: `Mutation.${o.fields.ackMany}`,
      method: 'POST',
      path: `${o.updatedPath}/batch-delete`,
      tag: o.tag,
      summary: `Acknowledge many ${o.plural}`,
      description: `Body {"ids": [...]} with 1 to ${MAX_IDS_PER_ACK.toLocaleString('en')} ids (more is 413). acknowledged counts the known ids; unknown ids are listed in notFound.`,
      bodyLists: { ids: { maxItems: MAX_IDS_PER_ACK } },
      example: { request: { ids: [42, 43, 99] }, response: { success: true, acknowledged: 2, notFound: [99] } },
    },
  ];
}

const capitalize = (s: string) => s[0]!.toUpperCase() + s.slice(1);
