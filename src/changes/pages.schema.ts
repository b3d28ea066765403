import type { ObjectRef } from '@pothos/core';
import { builder } from '../graphql/builder';
import type { PageShape } from './results';
import { PageMeta } from './results.schema';

type Types = typeof builder.$inferSchemaTypes;

/** `{payload: [Item], meta: PageMeta}`, the envelope of every list (SPEC 2.2). */
export function pageOf<Item>(name: string, item: ObjectRef<Types, Item>, description?: string) {
  return builder.objectRef<PageShape<Item>>(name).implement({
    ...(description ? { description } : {}),
    fields: (t) => ({
      payload: t.field({ type: [item], resolve: (page) => page.payload }),
      meta: t.field({ type: PageMeta, resolve: (page) => page.meta }),
    }),
  });
}

/** since/limit/offset of the change lists (SPEC 4.1), and after_id to page through one updatedAt. */
export const changeListArgs = builder.args((t) => ({
  since: t.field({ type: 'DateTime', description: 'Only records updated after this time (ISO 8601).' }),
  after_id: t.int({
    description:
      'With since: also records updated exactly at since whose id is greater (keyset paging). ' +
      'Pass the updatedAt and id of the last record of a page to page through a push of any size without skipping or repeating a record.',
  }),
  limit: t.int({ description: 'Page size; default 50, values above 500 are clamped to 500.' }),
  offset: t.int({ description: 'Records to skip; default 0.' }),
}));

/** limit/offset of the dashboard lists. */
export const pageArgs = builder.args((t) => ({
  limit: t.int({ description: 'Page size; default 50, values above 500 are clamped to 500.' }),
  offset: t.int({ description: 'Records to skip; default 0.' }),
}));
