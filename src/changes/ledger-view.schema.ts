import type { GraphQLResolveInfo } from 'graphql';
import { LEDGER_CHANNEL } from './channel-ledger';
import { channelView, type LedgerView } from './channel-view';
import { TRACKED_ENTITIES, type TrackedTableName } from './tracked-entities';
import type { RequestContext } from '../graphql/context';
import type DataLoader from 'dataloader';
import { readChannelStates, type ChannelRecordState } from './sql/read-channel-states';
import { perRequestLoader, type LoaderFamily } from '../graphql/per-request';

/**
 * The ledger fields of a tracked record as the caller's channel sees them (ADR 0045: every change
 * list, lookup and acknowledgement of a token acts on its channel). A row read as stored holds
 * channel default's ledger; a change list page read for a channel holds that channel's and says so
 * (LEDGER_CHANNEL). When the row holds the caller's own, the field reads it as it is: no promise,
 * no statement, which keeps the change lists as they were. Otherwise the channel's state of the
 * row is loaded with every other row of the answer (one statement per table and channel).
 */

/** What the channel's view of a row is computed from. */
type ViewedRow = { id: number; revision: number; fieldRevisions?: unknown };

/** Tracked tables by GraphQL type: the full type and its change-list variant (ProductChange). */
const TABLE_OF_TYPE = new Map<string, TrackedTableName>(
  TRACKED_ENTITIES.flatMap((e) => [
    [e.typeName, e.table],
    [`${e.typeName}Change`, e.table],
  ]),
);

function tableOf(info: GraphQLResolveInfo): TrackedTableName {
  const table = TABLE_OF_TYPE.get(info.parentType.name);
  if (table === undefined) throw new Error(`No tracked table for GraphQL type ${info.parentType.name}`);
  return table;
}

/**
 * The caller's channel's view of `row`, or null when the row's own ledger columns are the caller's:
 * a caller on default (a change list for default marks nothing, and every other read is of stored
 * rows), or a row of a change list read for the caller's channel. `table` may be the resolver's
 * info (interface fields shared by several types), looked up only when the view is loaded.
 */
export function channelViewOf(
  row: ViewedRow,
  ctx: Pick<RequestContext, 'auth' | 'prisma' | 'requestScope'>,
  table: TrackedTableName | GraphQLResolveInfo,
): Promise<LedgerView> | null {
  const channel = ctx.auth?.channelId ?? null;
  if (channel === null || (row as { [LEDGER_CHANNEL]?: number })[LEDGER_CHANNEL] === channel) return null;
  const name = typeof table === 'string' ? table : tableOf(table);
  return channelStateLoader(ctx, name, channel)
    .load(row.id)
    .then((state) => channelView({ revision: row.revision, fieldRevisions: row.fieldRevisions }, state));
}

/** A channel's state of records of one table, for the rows of one request: a loader per table and channel. */
function channelStateLoader(
  ctx: Pick<RequestContext, 'prisma' | 'requestScope'>,
  table: TrackedTableName,
  channelId: number,
): DataLoader<number, ChannelRecordState | undefined> {
  return perRequestLoader(ctx, channelStateLoaders, `${table}:${channelId}`, async (ids) => {
    const states = await readChannelStates(ctx.prisma, table, channelId, ids);
    return ids.map((id) => states.get(id));
  });
}

const channelStateLoaders: LoaderFamily<number, ChannelRecordState | undefined> = () => new Map();

/** How the ledger fields' descriptions end: whose ledger they tell. */
export const ON_CALLERS_CHANNEL = "As the caller's channel acknowledged: a bound token's own channel, else channel default (ADR 0045).";
