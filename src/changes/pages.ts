import type { PageShape } from '../graphql/pages';
import { resolvePage, type PageArgs } from './pagination';
import { markListed, type SqlRunner, type TrackedTableName } from './tracked-table';

export type Window = { skip: number; take: number };

type PageQuery<Row, Where> = {
  find: (where: Where, window: Window) => Promise<Row[]>;
  count: (where: Where) => Promise<number>;
};

/** One page of any list: rows and total in parallel, with the meta of SPEC 2.2. */
export async function fetchPage<Row, Where>(args: PageArgs, where: Where, query: PageQuery<Row, Where>): Promise<PageShape<Row>> {
  const page = resolvePage(args);
  const [payload, total] = await Promise.all([
    query.find(where, { skip: page.offset, take: page.limit }),
    query.count(where),
  ]);
  return { payload, meta: { total, limit: page.limit, offset: page.offset } };
}

export type PendingWhere = { pending: true; updatedAt?: { gt: Date } };

/** Oldest change first, id breaking ties, so that paging is stable. */
export const CHANGE_ORDER = [{ updatedAt: 'asc' as const }, { id: 'asc' as const }];
/** Newest change first, for dashboards. */
export const RECENT_ORDER = [{ updatedAt: 'desc' as const }, { id: 'desc' as const }];

/**
 * A page of a change list: pending records (updated after `since`), and each record's revision
 * remembered so that the acknowledgement covers exactly what was shown.
 */
export async function changeListPage<Row extends { id: number; revision: number }, Extra extends object = object>(
  db: SqlRunner,
  table: TrackedTableName,
  args: PageArgs,
  query: PageQuery<Row, PendingWhere & Extra>,
  extraWhere: Extra = {} as Extra,
): Promise<PageShape<Row>> {
  const since = resolvePage(args).since;
  const where = { ...extraWhere, pending: true as const, ...(since ? { updatedAt: { gt: since } } : {}) };
  const page = await fetchPage(args, where, query);
  await markListed(db, table, page.payload);
  return page;
}
