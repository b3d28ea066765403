import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { RECOVER_WINDOW } from '../queue-api';
import { ErrorNote, Notice } from './ui';

/** `datetime-local` values are in the browser's time zone, minutes only; the API takes ISO 8601. */
const toIso = (local: string): string => new Date(local).toISOString();
const shown = (local: string) => new Date(local).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });

/**
 * Recover (Svix's word) the failed items queued in a time window, e.g. after a receiver's outage.
 * A confirmation step says what will happen first: it can put many deliveries back at once.
 */
export function RecoverWindow({ onRecovered }: { onRecovered: () => void }) {
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [result, recover] = useMutation(RECOVER_WINDOW);
  const [recovered, setRecovered] = useState<number | null>(null);

  const ask = () => {
    setRecovered(null);
    if (until && new Date(since).getTime() > new Date(until).getTime()) {
      setProblem('Since must not be after until.');
      return;
    }
    setProblem(null);
    setConfirming(true);
  };
  const recoverNow = () =>
    void recover({ since: toIso(since), until: until ? toIso(until) : null }).then((r) => {
      setConfirming(false);
      if (r.data) {
        setRecovered(r.data.recoverQueueItems.recovered);
        onRecovered();
      }
    });

  return (
    <div class="recover">
      <h3>Recover a window</h3>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          ask();
        }}
      >
        <label>
          Since
          <input
            type="datetime-local"
            required
            value={since}
            onInput={(e) => {
              setSince(e.currentTarget.value);
              setConfirming(false);
            }}
          />
        </label>
        <label>
          Until
          <input
            type="datetime-local"
            value={until}
            onInput={(e) => {
              setUntil(e.currentTarget.value);
              setConfirming(false);
            }}
          />
        </label>
        <button type="submit" class="secondary" disabled={confirming}>
          Recover…
        </button>
      </form>
      {confirming && (
        <div class="confirm" role="alertdialog" aria-label="Confirm recover" data-testid="recover-confirmation">
          <p>
            Every <strong>failed</strong> item queued from {shown(since)} {until ? `until ${shown(until)}` : 'until now'} goes back to
            pending with a fresh schedule, due now. Each keeps its webhook-id, so a receiver that deduplicates by it processes each event at
            most once.
          </p>
          <button type="button" disabled={result.fetching} onClick={recoverNow}>
            Recover now
          </button>
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      <ErrorNote error={problem ?? result.error} />
      {recovered != null && <Notice>recovered: {recovered} (failed items of the window put back in the queue)</Notice>}
    </div>
  );
}
