import { useQuery } from '@urql/preact';
import { useLocation } from 'preact-iso';
import { oneOf, TRACKED_ENTITY_TYPES } from '../api';
import { JsonValue } from '../components/JsonValue';
import { age, ErrorNote, Pager, TableHead, time } from '../components/ui';
import { historyHref } from '../history-api';
import { PENDING_RECORDS, type PendingRecord } from '../pending-api';
import { CHANNEL_NAMES } from '../channels-api';

const PAGE_SIZE = 50;

export const ENTITY_LABELS: Record<(typeof TRACKED_ENTITY_TYPES)[number], string> = {
  product: 'Products',
  partner: 'Partners',
  sale_order: 'Sale orders',
  price_item: 'Price items',
  stock: 'Stock entries',
  purchase_order: 'Purchase orders',
};

/** The console's link to the pending records of one entity type, on one channel (default when left out). */
export const pendingHref = (entityType: string, offset = 0, channel = 'default') =>
  `/admin/pending?${new URLSearchParams({
    entity: entityType,
    ...(channel !== 'default' ? { channel } : {}),
    ...(offset ? { offset: String(offset) } : {}),
  })}`;

/**
 * The records a webshop still has to take in, per entity type, oldest change first: what changed,
 * from what to what, and for how long. Reading them marks nothing as listed (pending-api.ts).
 */
export function Pending() {
  const { query, route } = useLocation();
  const entityType = oneOf(TRACKED_ENTITY_TYPES, query['entity']) ?? 'product';
  const offset = Number(query['offset'] ?? 0) || 0;
  const channel = query['channel'] || 'default';
  const [{ data, error, fetching }] = useQuery({
    query: PENDING_RECORDS,
    variables: { entityType, limit: PAGE_SIZE, offset, channel },
  });
  // Each channel has its own pending records (ADR 0045): the page shows one at a time.
  const [{ data: channels }] = useQuery({ query: CHANNEL_NAMES });
  const page = data?.pendingRecords;
  return (
    <section class="card">
      <h2>Pending changes</h2>
      <nav class="tabs" aria-label="Entity type">
        {TRACKED_ENTITY_TYPES.map((t) => (
          <a key={t} href={pendingHref(t, 0, channel)} aria-current={t === entityType ? 'page' : undefined}>
            {ENTITY_LABELS[t]}
          </a>
        ))}
      </nav>
      {(channels?.channels.length ?? 0) > 1 && (
        <label>
          Channel{' '}
          <select data-testid="pending-channel" value={channel} onChange={(e) => route(pendingHref(entityType, 0, e.currentTarget.value))}>
            {channels!.channels.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <p class="muted">
        Changes not acknowledged yet on this channel, oldest first. Age is the time since the record's last change. Reading this page marks
        nothing as listed: a webshop's acknowledgement never covers what only the console was shown.
      </p>
      <ErrorNote error={error} />
      {page && page.meta.total === 0 && <p data-testid="pending-empty">Nothing pending: every change was acknowledged.</p>}
      {page && page.meta.total > 0 && (
        <table class="list pending">
          <TableHead columns={['Record', 'Revision', 'Changed fields (before → now)', 'Age', 'Last change', '']} />
          <tbody>
            {page.payload.map((r) => (
              <PendingRow key={r.id} entityType={entityType} record={r} />
            ))}
          </tbody>
        </table>
      )}
      {page && page.meta.total > PAGE_SIZE && <Pager meta={page.meta} onOffset={(o) => route(pendingHref(entityType, o, channel))} />}
      {fetching && !page && <p class="muted">Loading…</p>}
    </section>
  );
}

function PendingRow({ entityType, record: r }: { entityType: string; record: PendingRecord }) {
  const previous = (r.previous ?? {}) as Record<string, unknown>;
  const current = r.current as Record<string, unknown>;
  return (
    <tr data-pending-key={r.key}>
      <td>
        <code>{r.key}</code> {r.isNew && <span class="badge new">new</span>}
      </td>
      <td class="num">{r.revision}</td>
      <td>
        <ul class="changes">
          {r.changedFields.map((field) => (
            <li key={field} data-field={field}>
              <strong>{field}</strong>{' '}
              {r.isNew || !Object.hasOwn(previous, field) ? (
                <JsonValue value={current[field] ?? null} />
              ) : (
                <>
                  <JsonValue value={previous[field]} /> → <JsonValue value={current[field] ?? null} />
                </>
              )}
            </li>
          ))}
        </ul>
      </td>
      <td data-testid="age">{age(r.updatedAt)}</td>
      <td>{time(r.updatedAt)}</td>
      <td>
        {r.historyExternalId ? (
          <a href={historyHref(entityType, r.historyExternalId)}>History</a>
        ) : (
          <span class="muted" title="Stock entries keep no history (volume): the previous quantity is their past value">
            no history
          </span>
        )}
      </td>
    </tr>
  );
}
