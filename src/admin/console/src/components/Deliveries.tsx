import { useQuery } from '@urql/preact';
import { FAILURE_DELIVERIES, WEBHOOK_TARGETS, type DeliveryAttempt, type WebhookTarget } from '../queue-api';
import { ErrorNote, TableHead, time } from './ui';

/** What the queue item page and a failure's deliveries share: the target's URL and the attempt log. */

/**
 * The configurations by id, to show a queue item's target as its URL. Configurations are admin
 * only: without them (or once one is removed) the id is shown instead, nothing fails.
 */
export function useWebhookTargets(): Map<number, WebhookTarget> {
  const [{ data }] = useQuery({ query: WEBHOOK_TARGETS });
  return new Map((data?.webhookConfigs ?? []).map((c) => [c.id, c]));
}

export function WebhookTargetLabel({ id, targets }: { id: number | null; targets: Map<number, WebhookTarget> }) {
  if (id == null) return <span class="muted">removed configuration</span>;
  const target = targets.get(id);
  return (
    <span class="target" title={`Webhook configuration #${id}`}>
      {target ? target.url : `configuration #${id}`}
      {target && !target.active && <span class="badge disabled">inactive</span>}
    </span>
  );
}

/** Every attempt, newest first, as the API lists them; a retry or a resend starts again at attempt 1. */
export function AttemptTable({ attempts }: { attempts: DeliveryAttempt[] }) {
  if (attempts.length === 0) return <p class="muted">No attempt yet.</p>;
  return (
    <table class="list attempts">
      <TableHead columns={['Attempt', 'Started', 'Outcome', 'HTTP status', 'Duration', 'Retry-After', 'Response body (first 4 KB)']} />
      <tbody>
        {attempts.map((a, i) => (
          <tr key={i} class="attempt" data-outcome={a.outcome}>
            <td class="num">{a.attempt}</td>
            <td>{time(a.startedAt)}</td>
            <td>
              <span class={`badge outcome ${a.outcome}`}>{a.outcome}</span>
              {a.error && a.outcome !== 'http_error' && <span class="muted"> {a.error}</span>}
            </td>
            <td class="num status-code">{a.statusCode ?? '—'}</td>
            <td class="num">{a.durationMs} ms</td>
            <td>{a.retryAfter ?? '—'}</td>
            <td class="message">{a.responseBody ? <pre class="excerpt">{a.responseBody}</pre> : <span class="muted">—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A failure's webhook deliveries (one per configuration it was queued for), each with its attempts. */
export function FailureDeliveries({ failureId }: { failureId: number }) {
  const [{ data, error }] = useQuery({ query: FAILURE_DELIVERIES, variables: { failureId } });
  const targets = useWebhookTargets();
  const deliveries = data?.outboundQueue.payload;
  return (
    <div class="deliveries">
      <h3>Deliveries</h3>
      <ErrorNote error={error} />
      {deliveries && deliveries.length === 0 && (
        <p class="muted">None: no active webhook configuration matched its entity type and direction when it was reported.</p>
      )}
      {deliveries?.map((d) => (
        <div key={d.id} class="delivery" data-delivery-id={d.id}>
          <p>
            <a href={`/admin/queue/${d.id}`}>Queue item #{d.id}</a> <span class={`badge ${d.status}`}>{d.status}</span> to{' '}
            <WebhookTargetLabel id={d.webhookConfigId} targets={targets} /> · {d.attempts} / {d.maxAttempts} attempts · webhook-id{' '}
            <code>{d.messageId}</code>
          </p>
          <AttemptTable attempts={d.attemptLog} />
        </div>
      ))}
    </div>
  );
}
