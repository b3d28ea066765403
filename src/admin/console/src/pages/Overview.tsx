import { useQuery } from '@urql/preact';
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { QUEUE_STATUSES } from '../api';
import { OVERVIEW, type Overview as OverviewData } from '../overview-api';
import { LiveFeed } from '../components/LiveFeed';
import { ErrorNote } from '../components/ui';

const REFRESH_MS = 10_000;

const PENDING_LABELS: Array<[keyof OverviewData['pendingChanges'], string]> = [
  ['products', 'Products'],
  ['partners', 'Partners'],
  ['saleOrders', 'Sale orders'],
  ['priceItems', 'Price items'],
  ['stocks', 'Stock entries'],
  ['purchaseOrders', 'Purchase orders'],
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
          <CountTable rows={PENDING_LABELS.map(([key, label]) => ({ key: `pending-${key}`, label, count: data?.pendingChanges[key] }))} />
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
          <CountTable
            rows={QUEUE_STATUSES.map((status) => ({
              key: `queue-${status}`,
              label: <a href={`/admin/queue?status=${status}`}>{status}</a>,
              count: data?.outboundQueueStats[status],
            }))}
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

function DeliveryChart({ minutes }: { minutes: OverviewData['deliveriesPerMinute'] }) {
  const peak = Math.max(1, ...minutes.map((m) => m.delivered + m.failed));
  return (
    <div class="chart" role="img" aria-label="Deliveries per minute over the last 15 minutes">
      {minutes.map((m) => (
        <div key={m.minute} class="bar" title={`${new Date(m.minute).toLocaleTimeString()}: ${m.delivered} delivered, ${m.failed} failed`}>
          <div class="failed" style={{ height: `${(m.failed / peak) * 100}%` }} />
          <div class="delivered" style={{ height: `${(m.delivered / peak) * 100}%` }} />
        </div>
      ))}
      <p class="muted legend">
        Last 15 minutes · {minutes.reduce((n, m) => n + m.delivered, 0)} delivered, {minutes.reduce((n, m) => n + m.failed, 0)} failed
      </p>
    </div>
  );
}
