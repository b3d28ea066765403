import type { Pool } from 'pg';
import { queryPrepared } from '../db/prepared-query';
import { validationFailed, type ErrorDetail } from '../errors/app-error';
import type { PageShape } from './results';
import type { FeedListing, TrackedTableName } from './ledger';
import { LEDGER_CHANNEL } from './channel-ledger';
import { entityOfTable } from './tracked-entities';
import { PUSH_TARGETS, refuseIfPushed } from './push-mode';
import { channelAckJoinSql, firstPendingSql, pendingCountSql, pendingFieldsSql, pendingJoinedSql, T } from './sql/fragments';
import { column, empty, join, sql, trackedTable, type Sql } from './sql/sql';

/**
 * Pages of every list (SPEC 2.2, 4.1): the arguments, the generic page of a Prisma query, and the
 * change list of a tracked table with its listing marks. The Pothos side is src/changes/pages.schema.ts.
 */

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

export type PageArgs = {
  since?: Date | null | undefined;
  after_id?: number | null | undefined;
  limit?: number | null | undefined;
  offset?: number | null | undefined;
};
export type Page = { since: Date | undefined; afterId: number | undefined; limit: number; offset: number };

/** SPEC 4.1: limit defaults to 50 and is clamped to 500 (the clamp shows in meta.limit). */
export function resolvePage(args: PageArgs): Page {
  const details: ErrorDetail[] = [];
  if (args.limit != null && args.limit < 1) details.push({ field: 'limit', message: 'Must be at least 1' });
  if (args.offset != null && args.offset < 0) details.push({ field: 'offset', message: 'Must be 0 or more' });
  if (args.after_id != null && args.since == null) details.push({ field: 'after_id', message: 'Only with since' });
  if (details.length > 0) throw validationFailed(details);
  return {
    since: args.since ?? undefined,
    afterId: args.after_id ?? undefined,
    limit: Math.min(args.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
    offset: args.offset ?? 0,
  };
}

export type Window = { skip: number; take: number };

type PageQuery<Row, Where> = {
  find: (where: Where, window: Window) => Promise<Row[]>;
  count: (where: Where) => Promise<number>;
};

/** One page of any list: rows and total in parallel, with the meta of SPEC 2.2. */
export async function fetchPage<Row, Where>(args: PageArgs, where: Where, query: PageQuery<Row, Where>): Promise<PageShape<Row>> {
  const page = resolvePage(args);
  const [payload, total] = await Promise.all([query.find(where, { skip: page.offset, take: page.limit }), query.count(where)]);
  return { payload, meta: { total, limit: page.limit, offset: page.offset } };
}

/** Where a change list reads: the pg pool beneath Prisma, as named prepared statements (ADR 0033). */
export type ChangeListSource = { sql: Pool };

/** Newest change first, for dashboards. */
export const RECENT_ORDER = [{ updatedAt: 'desc' as const }, { id: 'desc' as const }];

/**
 * A page of a change list: pending records (updated after `since`, and equal to `filter`'s
 * values), oldest change first with id breaking ties so that paging is stable. Each record's
 * revision is remembered for `reader` (the API token or session asking), so that its
 * acknowledgement by id covers exactly what that reader was shown and nothing another reader saw
 * (ADR 0002). The webshop polls this all day, so it is one statement, one round trip: page,
 * total and the listing mark together, in one snapshot. The total is the pending counters' sum
 * (O(1), ADR 0030), a count of the rows only with `since`. The mark writes only rows whose revision
 * this reader has not been shown yet. It skips rows a push holds locked, so a poll never waits
 * for a push nor deadlocks with one; such a row is unmarked, which is safe: acknowledged by id it
 * comes back in notListed and stays pending (the push is about to change it anyway). Rows come
 * back in the Prisma model's shape, with only the fields their change record shows
 * (`changeColumns`). `filter`'s keys are column names written in the code, never input.
 * The statement runs through the pg pool as a named prepared statement (parsed once per connection, no
 * Prisma raw layer). A `reader` of null (a viewer's token, ADR 0044) reads the same page and marks
 * nothing: what it was shown widens no acknowledgement.
 */
export async function changeListPage<Row extends { id: number; revision: number }>(
  db: ChangeListSource,
  table: TrackedTableName,
  reader: FeedListing,
  args: PageArgs,
  filter: Record<string, string> = {},
): Promise<PageShape<Row>> {
  const page = resolvePage(args);
  // A token's listing of a channel that pushes would split its feed (ADR 0047); a dashboard's read may.
  if (reader.key !== null) {
    await refuseIfPushed(
      db.sql,
      async () => (await db.sql.query<{ channel_id: number | null; url: string }>(PUSH_TARGETS.text)).rows,
      reader.channelId,
    );
  }
  const { key, channelId } = reader;
  // Channel default: the records' pending flag. Another channel: above its cursor and not
  // acknowledged at the current revision (ADR 0045).
  // A page after `since` starts there instead: the index scan can start at one lower bound only.
  const conditions: Sql[] =
    channelId !== null ? [pendingJoinedSql(table, T, channelId)] : [sql`t.pending`, ...(page.since ? [] : [fromOldestPendingSql(table)])];
  if (page.since) {
    const since = page.since.toISOString();
    conditions.push(
      page.afterId === undefined
        ? sql`t.updated_at > ${since}::timestamptz`
        : sql`(t.updated_at, t.id) > (${since}::timestamptz, ${page.afterId}::int)`,
    );
  }
  for (const [name, value] of Object.entries(filter)) conditions.push(sql`t.${column(name)} = ${value}`);
  const where = join(conditions, ' AND ');
  const from = sql`${trackedTable(table)} AS t${channelId !== null ? sql` ${channelAckJoinSql(table, T, channelId)}` : empty}`;
  const counted = page.since ? undefined : pendingCountSql(table, channelId, filter);
  const totalSql = counted ?? sql`(SELECT count(*)::int FROM ${from} WHERE ${where})`;
  const columns = pageColumns(table, channelId !== null);
  // A viewer's read marks nothing (ADR 0044). The page's ids are also given as an array: a generic
  // plan (a named statement after five executions) estimates a parameter LIMIT at a tenth of the
  // table and would join the page by scanning the whole table twice; an array of ids it estimates
  // at ten rows and looks up by primary key, as the custom plan does.
  const listed =
    key === null
      ? empty
      : sql`, listed AS (
       UPDATE ${trackedTable(table)} AS t SET listed_revisions = t.listed_revisions || jsonb_build_object(${key}::text, page.revision)
         FROM page
        WHERE t.id = page.id AND t.id IN (
          SELECT u.id FROM ${trackedTable(table)} AS u JOIN page AS p ON u.id = p.id
           WHERE u.id = ANY (ARRAY(SELECT id FROM page)) AND (u.listed_revisions ->> ${key}::text) IS DISTINCT FROM p.revision::text
           FOR UPDATE OF u SKIP LOCKED)
     )`;
  // The page's size and offset are read through subqueries, so the planner does not know them
  // when it plans, for any execution: the plan it makes for one call (a custom plan) then costs what
  // the plan for every call (generic) costs, and PostgreSQL keeps the generic one after five calls
  // instead of planning each poll again (measured with pgbench: 1.55 ms → 0.88 a poll of 50 on
  // 1,000,000 records). Its shape is the one page-plan.test.ts checks.
  const statement = sql`WITH page AS MATERIALIZED (
       SELECT ${columns.selected} FROM ${from} WHERE ${where}
        ORDER BY t.updated_at, t.id LIMIT (SELECT ${page.limit}::int) OFFSET (SELECT ${page.offset}::int)
     )${listed}
     SELECT total.n AS "__total", ${columns.answered}
       FROM (SELECT ${totalSql} AS n) AS total
       LEFT JOIN page ON true
      ORDER BY page.updated_at, page.id`;
  const { total, payload } = await viaPool<Row>(db.sql, statement, channelId);
  return { payload, meta: { total, limit: page.limit, offset: page.offset } };
}

/**
 * Channel default's page starts at its oldest pending record: a bound that changes no answer but
 * makes the read independent of the index the planner picks. When the statistics say every record
 * is pending (after a first import, or a resync of everything), the full `(updated_at, id)` index
 * costs as much as the partial index of pending records, and PostgreSQL 18 may pick it; a drain
 * then steps over every record it has acknowledged on each page (20,000 records in pages of 500:
 * from 30 ms a page to 90 by the last; bounded, about 25 throughout). The bound is one probe of
 * the partial index, read from the index alone, and either index's scan starts there. Not with
 * `since`: an index scan starts at one of its lower bounds, and it took this one, reading every
 * pending record before `since` (23 ms against 0.2 for a page in the middle of 1,000,000).
 */
function fromOldestPendingSql(table: TrackedTableName): Sql {
  return sql`(t.updated_at, t.id) >= (${firstPendingSql(table, null, sql`t.updated_at, t.id`)})`;
}

type PageColumns = { selected: Sql; answered: Sql };
const columnsByTable = new Map<string, PageColumns>();

/** Arrays of text: sent as JSON, which the client parses natively, instead of in Postgres's array syntax. */
const TEXT_ARRAY_COLUMNS = new Set(['changed_fields']);

/**
 * What a page selects: the columns its change record shows, and id, revision and updated_at,
 * which the listing mark and the order need, and acked_revision, which `previous` is measured
 * from. Not `*`: the ledger's own columns (listing marks with an entry per reader, field
 * revisions, time stamps no record shows) would be sent, parsed and dropped on every poll. Text
 * arrays are answered as JSON: the same string[] once parsed, but through JSON.parse rather than
 * pg's array parser, which cost a poll more than any other column. On a channel other than
 * default, the ledger's columns are the channel's: acknowledged revision, new, changed fields.
 */
function pageColumns(table: TrackedTableName, onChannel: boolean): PageColumns {
  const key = `${table}:${onChannel}`;
  let columns = columnsByTable.get(key);
  if (columns === undefined) {
    const names = [...new Set(['id', 'revision', 'updated_at', 'acked_revision', ...entityOfTable(table).changeColumns])];
    const channelAcked = sql`COALESCE(a.acked_revision, 0)`;
    const onChannelSql: Record<string, Sql> = {
      acked_revision: channelAcked,
      is_new: sql`a.acked_revision IS NULL`,
      pending: sql`true`,
      // Where the channel acknowledged what default did, the stored column says the same, unrecomputed.
      changed_fields: sql`CASE WHEN ${channelAcked} = t.acked_revision THEN t.changed_fields ELSE ${pendingFieldsSql(sql`t.field_revisions`, channelAcked)} END`,
    };
    const selected = (name: string) =>
      onChannel && name in onChannelSql ? sql`${onChannelSql[name]!} AS ${column(name)}` : sql`t.${column(name)}`;
    const answered = (name: string) =>
      TEXT_ARRAY_COLUMNS.has(name) ? sql`to_json(page.${column(name)}) AS ${column(name)}` : sql`page.${column(name)}`;
    columns = { selected: join(names.map(selected), ', '), answered: join(names.map(answered), ', ') };
    columnsByTable.set(key, columns);
  }
  return columns;
}

type PageRows<Row> = { total: number; payload: Row[] };

/**
 * `channelId`: whose ledger the rows' columns hold. Rows of another channel than default are marked
 * with it (LEDGER_CHANNEL, not enumerable: no copy, comparison or answer sees it); default's rows,
 * the hot path, are left as they are: an unmarked row holds default's ledger.
 */
async function viaPool<Row>(pool: Pool, statement: Sql, channelId: number | null): Promise<PageRows<Row>> {
  const { columns, rows } = await queryPrepared(pool, statement.text, statement.values);
  const fields = columns.map(fieldOf);
  const totalAt = columns.indexOf('__total');
  const idAt = columns.indexOf('id');
  const payload: Row[] = [];
  for (const row of rows) {
    if (row[idAt] === null) continue;
    const model: Record<string, unknown> = {};
    for (let i = 0; i < fields.length; i++) if (fields[i] !== undefined) model[fields[i]!] = row[i];
    if (channelId !== null) Object.defineProperty(model, LEDGER_CHANNEL, { value: channelId });
    payload.push(model as Row);
  }
  return { total: Number(rows[0]?.[totalAt] ?? 0), payload };
}

const fieldNames = new Map<string, string>();

/** The model field of a column; undefined for the total and the listing marks, which a page leaves out. */
function fieldOf(column: string): string | undefined {
  if (column === '__total' || column === 'listed_revisions') return undefined;
  let field = fieldNames.get(column);
  if (field === undefined) {
    field = column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    fieldNames.set(column, field);
  }
  return field;
}
