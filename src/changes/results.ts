/**
 * The plain result shapes of the change feed: what services return and the GraphQL types in
 * src/graphql/common-types.ts expose. They live with the domain so that services never import
 * the GraphQL edge.
 */

export type PageMetaShape = { total: number; limit: number; offset: number };

/** `{payload, meta}`, the envelope of every list (SPEC 2.2). */
export type PageShape<Item> = { payload: Item[]; meta: PageMetaShape };

export type SyncErrorShape = { index: number; external_id: string | null; field: string; message: string };

export type SyncResultShape = {
  success: boolean;
  processed: number;
  created: number;
  updated: number;
  errors: SyncErrorShape[];
};

export type AckResultShape = { success: boolean; acknowledged: number };

export type BatchAckResultShape = AckResultShape & { notFound: number[]; notListed: number[] };
