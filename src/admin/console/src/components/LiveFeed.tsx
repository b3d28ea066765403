import { useSubscription } from '@urql/preact';
import { useEffect } from 'preact/hooks';
import { FAILURE_EVENTS, type FailureEvent } from '../failures-api';
import { time } from './ui';

const KEEP = 20;

/** The newest sync_failure events, as the server pushes them over SSE. */
export function LiveFeed({ onEvent }: { onEvent?: () => void }) {
  const [{ data, error }] = useSubscription({ query: FAILURE_EVENTS }, (events: FailureEvent[] = [], next) =>
    [next.syncFailure, ...events].slice(0, KEEP),
  );
  const newest = data?.[0]?.failure_id;
  useEffect(() => {
    if (newest !== undefined) onEvent?.();
  }, [newest]);
  return (
    <section class="card live-feed" aria-live="polite">
      <h2>
        Live failures <span class={error ? 'dot off' : 'dot on'} title={error ? 'disconnected' : 'connected'} />
      </h2>
      {!data?.length ? (
        <p class="muted">Waiting for failures… new ones appear here as they are reported.</p>
      ) : (
        <ul>
          {data.map((e) => (
            <li key={e.failure_id} data-failure-id={e.failure_id}>
              <a href={`/admin/failures/${e.failure_id}`}>
                <strong>{e.entity_type}</strong> {e.external_id ?? '(no external id)'} from {e.source}
              </a>
              <span class="muted"> · {time(e.failed_at)}</span>
              <div>{e.error_message}</div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
