import { useSubscription } from '@urql/preact';
import { useEffect } from 'preact/hooks';
import { OPERATIONAL_EVENTS, type OperationalEvent } from '../webhooks-api';
import { time } from './ui';

const KEEP = 20;

function describe(e: OperationalEvent): string {
  const target = e.url ?? `webhook #${e.webhookId ?? '?'}`;
  if (e.name === 'webhook.disabled') return `Webhook #${e.webhookId} to ${target} disabled: ${e.error ?? 'failing too long'}`;
  if (e.name === 'delivery.failed') return `Delivery #${e.itemId} to ${target} abandoned after ${e.attempts} attempt(s): ${e.error ?? ''}`;
  return `Delivery #${e.itemId} to ${target} succeeded after ${e.attempts} attempts`;
}

/** Webhooks disabled, deliveries abandoned or recovered, as the server pushes them over SSE. */
export function OperationalFeed({ onEvent }: { onEvent?: () => void }) {
  const [{ data, error }] = useSubscription({ query: OPERATIONAL_EVENTS }, (events: OperationalEvent[] = [], next) =>
    [next.operationalEvents, ...events].slice(0, KEEP),
  );
  const newest = data?.[0];
  useEffect(() => {
    if (newest) onEvent?.();
  }, [newest]);
  return (
    <section class="card live-feed operational-feed" aria-live="polite">
      <h2>
        Operational events <span class={error ? 'dot off' : 'dot on'} title={error ? 'disconnected' : 'connected'} />
      </h2>
      {!data?.length ? (
        <p class="muted">Waiting… webhooks disabled, deliveries abandoned or recovered appear here as they happen.</p>
      ) : (
        <ul>
          {data.map((e, i) => (
            <li key={`${e.name}-${e.itemId ?? e.webhookId}-${e.at}-${i}`} data-event={e.name}>
              <span class={`badge ${e.name === 'delivery.recovered' ? 'completed' : 'failed'}`}>{e.name}</span>{' '}
              <span class="muted">{time(e.at)}</span>
              <div>{describe(e)}</div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
