import { useMutation, useQuery } from '@urql/preact';
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
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

/** The statuses the menu offers: the queue's, and "retrying", pending items whose last attempt failed. */
const STATUS_CHOICES = [...QUEUE_STATUSES, 'retrying'] as const;

type Search = { status?: string; offset?: number; messageId?: string; failureId?: string };

export function Queue() {
  const { query, path, route } = useLocation();
  const status = oneOf(STATUS_CHOICES, query['status']) ?? '';
  const offset = Number(query['offset'] ?? 0) || 0;
  const messageId = query['messageId']?.trim() ?? '';
  const failureId = Number(query['failureId']) > 0 ? Number(query['failureId']) : null;
  const go = (next: Search) => {
    const params = new URLSearchParams();
    const values = { status, messageId, failureId: failureId ? String(failureId) : '', ...next };
    for (const key of ['status', 'messageId', 'failureId'] as const) if (values[key]) params.set(key, values[key]);
    if (next.offset) params.set('offset', String(next.offset));
    route(`${path}?${params}`);
  };
  const [{ data, error }, reload] = useQuery({
    query: QUEUE,
    variables: {
      status: status === 'retrying' || !status ? null : status,
      retrying: status === 'retrying' ? true : null,
      messageId: messageId || null,
      failureId,
      limit: PAGE_SIZE,
      offset,
    },
  });
  const [retryOne, retry] = useMutation(RETRY_ITEM);
  const [retryAll, retryFailed] = useMutation(RETRY_FAILED);
  const targets = useWebhookTargets();
  const refresh = () => reload({ requestPolicy: 'network-only' });
  return (
    <section class="card">
      <h2>Webhook queue</h2>
      <SearchForm
        key={`${messageId}\n${failureId ?? ''}`}
        messageId={messageId}
        failureId={failureId}
        onSearch={(s) => go({ ...s, offset: 0 })}
      />
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Select label="Status" value={status} options={STATUS_CHOICES} empty="any" onChange={(s) => go({ status: s, offset: 0 })} />
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
      {data && (messageId || failureId) && data.outboundQueue.meta.total === 0 && (
        <p data-testid="queue-none">
          No delivery {messageId ? `with webhook-id ${messageId}` : ''}
          {messageId && failureId ? ' and ' : ''}
          {failureId ? `for failure #${failureId}` : ''}
          {status ? ` (${status})` : ''}.
        </p>
      )}
      <table class="list">
        <TableHead columns={['#', 'Status', 'Attempts', 'Next attempt', 'Last result', 'Webhook URL', 'Failure', 'webhook-id', '']} />
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
                {item.status === 'pending' && item.lastError && <span class="badge retrying">retrying</span>}
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
                <code class="message-id">{item.messageId}</code>
              </td>
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

/**
 * Find deliveries by what a receiver or an operator holds: the webhook-id header a receiver logged
 * (each delivery has its own, the same on every attempt), or a failure's number (one delivery per
 * configuration it was queued for). Both go into the URL, so a search can be linked.
 */
function SearchForm(props: { messageId: string; failureId: number | null; onSearch: (search: Search) => void }) {
  const [messageId, setMessageId] = useState(props.messageId);
  const [failureId, setFailureId] = useState(props.failureId ? String(props.failureId) : '');
  return (
    <form
      class="filters search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSearch({ messageId: messageId.trim(), failureId: failureId.trim() });
      }}
    >
      <label>
        webhook-id
        <input value={messageId} placeholder="msg_…" onInput={(e) => setMessageId(e.currentTarget.value)} size={38} />
      </label>
      <label>
        Failure #
        <input type="number" min={1} value={failureId} onInput={(e) => setFailureId(e.currentTarget.value)} />
      </label>
      <button type="submit">Search</button>
      {(props.messageId || props.failureId) && (
        <button type="button" class="secondary" onClick={() => props.onSearch({ messageId: '', failureId: '' })}>
          Clear
        </button>
      )}
    </form>
  );
}
