import { useQuery } from '@urql/preact';
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { QUEUE_STATUSES } from '../api';
import { OVERVIEW, type Overview as OverviewData } from '../overview-api';
import { LiveFeed } from '../components/LiveFeed';
import { ErrorNote } from '../components/ui';
import { pendingHref } from './Pending';

const REFRESH_MS = 10_000;

/** Each count of pendingChanges, its label and the entity type of its Pending page. */
const PENDING_LABELS: Array<[keyof OverviewData['pendingChanges'], string, string]> = [
  ['products', 'Products', 'product'],
  ['partners', 'Partners', 'partner'],
  ['saleOrders', 'Sale orders', 'sale_order'],
  ['priceItems', 'Price items', 'price_item'],
  ['stocks', 'Stock entries', 'stock'],
  ['purchaseOrders', 'Purchase orders', 'purchase_order'],
];

export function Overview() {
  const [{ data, error }, refresh] = useQuery({ query: OVERVIEW });
  useEffect(() => {
    const timer = setInterval(() => refresh({ requestPolicy: 'network-only' }), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);
  return (
    <div class="overview">
      <ErrorNote error={error} />
      <div class="grid">
        <section class="card">
          <h2>Pending changes</h2>
          <CountTable
            rows={PENDING_LABELS.map(([key, label, entityType]) => ({
              key: `pending-${key}`,
              label: <a href={pendingHref(entityType)}>{label}</a>,
              count: data?.pendingChanges[key],
            }))}
          />
        </section>
        <section class="card">
          <h2>Open failures</h2>
          <table>
            <thead>
              <tr>
                <th>Entity</th>
                <th>Source</th>
                <th class="num">Open</th>
              </tr>
            </thead>
            <tbody>
              {data?.openFailureCounts.map((c) => (
                <tr key={`${c.entity_type}/${c.source}`}>
                  <td>{c.entity_type}</td>
                  <td>{c.source}</td>
                  <td class="num" data-testid={`open-${c.entity_type}-${c.source}`}>
                    <a href={`/admin/failures?status=open&entity=${c.entity_type}&source=${c.source}`}>{c.open}</a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section class="card">
          <h2>Webhook queue</h2>
          {/* An endpoint failing every attempt keeps its items pending, retrying, for up to a day: "failed" alone said 0. */}
          <CountTable
            rows={[
              ...QUEUE_STATUSES.map((status) => ({
                key: `queue-${status}`,
                label: <a href={`/admin/queue?status=${status}`}>{status}</a>,
                count: data?.outboundQueueStats[status],
              })),
              {
                key: 'queue-retrying',
                label: (
                  <a href="/admin/queue?status=retrying" title="Pending items whose last attempt failed">
                    retrying after a failed attempt
                  </a>
                ),
                count: data?.outboundQueueStats.retrying,
              },
            ]}
          />
        </section>
        <section class="card">
          <h2>Deliveries per minute</h2>
          <DeliveryChart minutes={data?.deliveriesPerMinute ?? []} />
        </section>
      </div>
      <LiveFeed onEvent={() => refresh({ requestPolicy: 'network-only' })} />
    </div>
  );
}

/** Label and number rows; `key` is also the number's test id. */
function CountTable({ rows }: { rows: Array<{ key: string; label: ComponentChildren; count: number | undefined }> }) {
  return (
    <table>
      <tbody>
        {rows.map((row) => (
          <tr key={row.key}>
            <th scope="row">{row.label}</th>
            <td class="num" data-testid={row.key}>
              {row.count ?? '…'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Delivered items and failed attempts per minute. Failed attempts, not abandoned items: an item is
 * abandoned only after its sixth attempt or a day, so an endpoint failing every attempt showed 0.
 */
function DeliveryChart({ minutes }: { minutes: OverviewData['deliveriesPerMinute'] }) {
  const peak = Math.max(1, ...minutes.map((m) => m.delivered + m.failedAttempts));
  const sum = (key: 'delivered' | 'failedAttempts' | 'failed') => minutes.reduce((n, m) => n + m[key], 0);
  return (
    <div class="chart" role="img" aria-label="Deliveries and failed attempts per minute over the last 15 minutes">
      {minutes.map((m) => (
        <div
          key={m.minute}
          class="bar"
          title={`${new Date(m.minute).toLocaleTimeString()}: ${m.delivered} delivered, ${m.failedAttempts} failed attempts, ${m.failed} abandoned`}
        >
          <div class="failed" style={{ height: `${(m.failedAttempts / peak) * 100}%` }} />
          <div class="delivered" style={{ height: `${(m.delivered / peak) * 100}%` }} />
        </div>
      ))}
      <p class="muted legend" data-testid="delivery-legend">
        Last 15 minutes · {sum('delivered')} delivered, {sum('failedAttempts')} failed attempts, {sum('failed')} abandoned
      </p>
    </div>
  );
}
