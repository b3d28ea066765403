import { useMutation, useQuery } from '@urql/preact';
import { useLocation } from 'preact-iso';
import { QUEUE, QUEUE_STATUSES, RETRY_FAILED, RETRY_ITEM, type Page, type QueueItem } from '../api';
import { ErrorNote, Notice, Pager, Select, TableHead, time } from '../components/ui';

const PAGE_SIZE = 25;

export function Queue() {
  const { query, path, route } = useLocation();
  const status = (query['status'] ?? '') as (typeof QUEUE_STATUSES)[number] | '';
  const offset = Number(query['offset'] ?? 0) || 0;
  const go = (next: { status?: string; offset?: number }) => {
    const params = new URLSearchParams();
    const s = next.status ?? status;
    if (s) params.set('status', s);
    if (next.offset) params.set('offset', String(next.offset));
    route(`${path}?${params}`);
  };
  const [{ data, error }, reload] = useQuery<{ outboundQueue: Page<QueueItem>; outboundQueueStats: Record<string, number> }>({
    query: QUEUE,
    variables: { status: status || null, limit: PAGE_SIZE, offset },
  });
  const [retryOne, retry] = useMutation<{ retryQueueItem: { id: number } }>(RETRY_ITEM);
  const [retryAll, retryFailed] = useMutation<{ retryFailedQueueItems: { retried: number } }>(RETRY_FAILED);
  const refresh = () => reload({ requestPolicy: 'network-only' });
  return (
    <section class="card">
      <h2>Webhook queue</h2>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Select label="Status" value={status} options={QUEUE_STATUSES} empty="any" onChange={(s) => go({ status: s, offset: 0 })} />
        <button
          type="button"
          disabled={retryAll.fetching || !data?.outboundQueueStats['failed']}
          onClick={() => void retryFailed({}).then(refresh)}
        >
          Retry all failed ({data?.outboundQueueStats['failed'] ?? 0})
        </button>
      </form>
      <ErrorNote error={error ?? retryOne.error ?? retryAll.error} />
      {retryAll.data && <Notice>{retryAll.data.retryFailedQueueItems.retried} failed items put back in the queue.</Notice>}
      {retryOne.data && <Notice>Item #{retryOne.data.retryQueueItem.id} put back in the queue.</Notice>}
      <table class="list">
        <TableHead columns={['#', 'Status', 'Attempts', 'Next attempt', 'Last result', 'Webhook', 'Failure', '']} />
        <tbody>
          {data?.outboundQueue.payload.map((item) => (
            <tr key={item.id} data-queue-id={item.id}>
              <td>{item.id}</td>
              <td>
                <span class={`badge ${item.status}`}>{item.status}</span>
              </td>
              <td>
                {item.attempts} / {item.maxAttempts}
              </td>
              <td>
                {item.status === 'completed' ? `done ${time(item.completedAt)}` : item.status === 'failed' ? '—' : time(item.nextAttemptAt)}
              </td>
              <td class="message">
                {item.lastStatusCode ? `HTTP ${item.lastStatusCode}` : ''} {item.lastError ?? ''}
              </td>
              <td>{item.webhookConfigId ?? 'removed'}</td>
              <td>{item.failureId ? <a href={`/admin/failures/${item.failureId}`}>{item.failureId}</a> : '—'}</td>
              <td>
                {item.status === 'failed' && (
                  <button type="button" disabled={retryOne.fetching} onClick={() => void retry({ id: item.id }).then(refresh)}>
                    Retry
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && <Pager meta={data.outboundQueue.meta} onOffset={(o) => go({ offset: o })} />}
    </section>
  );
}
