import { useMutation, useQuery } from '@urql/preact';
import { useLocation } from 'preact-iso';
import { oneOf, QUEUE_STATUSES } from '../api';
import { useWebhookTargets, WebhookTargetLabel } from '../components/Deliveries';
import { RecoverWindow } from '../components/RecoverWindow';
import { ErrorNote, Notice, Pager, Select, TableHead, time } from '../components/ui';
import { QUEUE, RETRY_FAILED, RETRY_ITEM, type QueueItem } from '../queue-api';

const PAGE_SIZE = 25;

/** lastError already says "HTTP 500" for a status error: the status is added only when it says something else. */
function lastResult(item: QueueItem): string {
  const status = item.lastStatusCode ? `HTTP ${item.lastStatusCode}` : null;
  const parts = [status && !item.lastError?.includes(status) ? status : null, item.lastError];
  return parts.filter(Boolean).join(' · ');
}

export function Queue() {
  const { query, path, route } = useLocation();
  const status = oneOf(QUEUE_STATUSES, query['status']) ?? '';
  const offset = Number(query['offset'] ?? 0) || 0;
  const go = (next: { status?: string; offset?: number }) => {
    const params = new URLSearchParams();
    const s = next.status ?? status;
    if (s) params.set('status', s);
    if (next.offset) params.set('offset', String(next.offset));
    route(`${path}?${params}`);
  };
  const [{ data, error }, reload] = useQuery({
    query: QUEUE,
    variables: { status: status || null, limit: PAGE_SIZE, offset },
  });
  const [retryOne, retry] = useMutation(RETRY_ITEM);
  const [retryAll, retryFailed] = useMutation(RETRY_FAILED);
  const targets = useWebhookTargets();
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
        <TableHead columns={['#', 'Status', 'Attempts', 'Next attempt', 'Last result', 'Webhook URL', 'Failure', '']} />
        <tbody>
          {data?.outboundQueue.payload.map((item) => (
            <tr key={item.id} data-queue-id={item.id}>
              <td>
                <a href={`/admin/queue/${item.id}`} title="Attempts, payload, retry and resend">
                  {item.id}
                </a>
              </td>
              <td>
                <span class={`badge ${item.status}`}>{item.status}</span>
              </td>
              <td>
                {item.attempts} / {item.maxAttempts}
              </td>
              <td>
                {item.status === 'completed' ? `done ${time(item.completedAt)}` : item.status === 'failed' ? '—' : time(item.nextAttemptAt)}
              </td>
              <td class="message">{lastResult(item)}</td>
              <td>
                <WebhookTargetLabel id={item.webhookConfigId} targets={targets} />
              </td>
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
      <RecoverWindow onRecovered={refresh} />
    </section>
  );
}
