import { useMutation, useQuery } from '@urql/preact';
import { useRoute } from 'preact-iso';
import { AttemptTable, useWebhookTargets, WebhookTargetLabel } from '../components/Deliveries';
import { ErrorNote, Notice, time } from '../components/ui';
import { QUEUE_ITEM, RETRY_ITEM } from '../queue-api';

/** One delivery: where it goes, every attempt with what the receiver answered, the payload, retry and resend. */
export function QueueItemDetail() {
  const { params } = useRoute();
  const id = Number(params['id']);
  const [{ data, error }, reload] = useQuery({ query: QUEUE_ITEM, variables: { id } });
  const [retried, retry] = useMutation(RETRY_ITEM);
  const targets = useWebhookTargets();
  const item = data?.outboundQueueItem;
  const requeue = () =>
    void retry({ id }).then((r) => {
      if (!r.error) reload({ requestPolicy: 'network-only' });
    });
  return (
    <section class="card">
      <p>
        <a href="/admin/queue">← Queue</a>
      </p>
      <ErrorNote error={error} />
      {item && (
        <>
          <h2>
            Queue item #{item.id} <span class={`badge ${item.status}`}>{item.status}</span>
          </h2>
          <dl class="facts">
            <dt>Webhook URL</dt>
            <dd data-testid="queue-item-url">
              <WebhookTargetLabel id={item.webhookConfigId} targets={targets} />
            </dd>
            <dt>Event</dt>
            <dd>{item.event}</dd>
            <dt>webhook-id</dt>
            <dd>
              <code>{item.messageId}</code>
            </dd>
            <dt>Attempts</dt>
            <dd>
              {item.attempts} / {item.maxAttempts} in the current schedule
            </dd>
            <dt>Queued</dt>
            <dd>{time(item.createdAt)}</dd>
            {item.status === 'completed' ? (
              <>
                <dt>Delivered</dt>
                <dd>{time(item.completedAt)}</dd>
              </>
            ) : (
              item.status !== 'failed' && (
                <>
                  <dt>Next attempt</dt>
                  <dd>{time(item.nextAttemptAt)}</dd>
                </>
              )
            )}
            <dt>Failure</dt>
            <dd>{item.failureId ? <a href={`/admin/failures/${item.failureId}`}>Failure #{item.failureId}</a> : '—'}</dd>
          </dl>
          {item.status === 'failed' && (
            <p class="actions">
              <button type="button" disabled={retried.fetching} onClick={requeue}>
                Retry now
              </button>{' '}
              <span class="muted">Back to pending with a fresh schedule, due now, with the same webhook-id.</span>
            </p>
          )}
          {item.status === 'completed' && (
            <p class="actions">
              <button type="button" disabled={retried.fetching} onClick={requeue}>
                Resend
              </button>{' '}
              <span class="muted">
                Sends it again with the same webhook-id (<code>{item.messageId}</code>): a receiver that deduplicates by it processes the
                event at most once.
              </span>
            </p>
          )}
          <ErrorNote error={retried.error} />
          {retried.data && <Notice>Item #{retried.data.retryQueueItem.id} queued again with the same webhook-id.</Notice>}
          <h3>Attempts</h3>
          <AttemptTable attempts={item.attemptLog} />
          <h3>Payload</h3>
          <pre class="raw payload">{JSON.stringify(item.payload, null, 2)}</pre>
        </>
      )}
    </section>
  );
}
