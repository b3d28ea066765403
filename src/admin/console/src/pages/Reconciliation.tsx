import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { TRACKED_ENTITY_TYPES } from '../api';
import { ErrorNote, Notice, Select, TableHead, time } from '../components/ui';
import { graphql } from '../graphql';
import { historyHref, isHistoryEntityType } from '../history-api';

/** The feed per entity type, and resync with a count preview and a confirmation (ADR 0029). */

const RECONCILIATION = graphql(`
  query Reconciliation {
    reconciliation {
      entities {
        entityType
        records
        pending
        neverAcknowledged
        oldestPendingAt
        oldestPendingAgeSeconds
        lastPushAt
        lastAcknowledgedAt
      }
    }
  }
`);

const RESYNC = graphql(`
  mutation Resync($entityType: String!, $externalIds: [String!], $since: DateTime, $until: DateTime, $dryRun: Boolean) {
    resync(entity_type: $entityType, external_ids: $externalIds, since: $since, until: $until, dry_run: $dryRun) {
      resynced
    }
  }
`);

function age(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h`;
}

export function Reconciliation() {
  const [{ data, error }, reload] = useQuery({ query: RECONCILIATION });
  return (
    <>
      <section class="card">
        <h2>Reconciliation</h2>
        <ErrorNote error={error} />
        <table class="list" data-testid="reconciliation-table">
          <TableHead
            columns={['Entity', 'Records', 'Pending', 'Never acknowledged', 'Oldest pending', 'Last push', 'Last acknowledgement']}
          />
          <tbody>
            {data?.reconciliation.entities.map((e) => (
              <tr key={e.entityType} data-entity={e.entityType}>
                <td>
                  {e.entityType}
                  {isHistoryEntityType(e.entityType) && (
                    <>
                      {' '}
                      <a class="aside" href={historyHref(e.entityType)} aria-label={`History of a ${e.entityType}`}>
                        history
                      </a>
                    </>
                  )}
                </td>
                <td>{e.records}</td>
                <td data-testid={`pending-${e.entityType}`}>{e.pending}</td>
                <td>{e.neverAcknowledged}</td>
                <td title={e.oldestPendingAt ?? ''}>{age(e.oldestPendingAgeSeconds)}</td>
                <td>{time(e.lastPushAt)}</td>
                <td>{time(e.lastAcknowledgedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <ResyncForm onDone={() => reload({ requestPolicy: 'network-only' })} />
    </>
  );
}

function ResyncForm({ onDone }: { onDone: () => void }) {
  const [entityType, setEntityType] = useState<(typeof TRACKED_ENTITY_TYPES)[number]>('product');
  const [ids, setIds] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [preview, setPreview] = useState<number | null>(null);
  const [done, setDone] = useState<number | null>(null);
  const [state, run] = useMutation(RESYNC);
  const variables = () => {
    const externalIds = ids
      .split(/[\s,]+/)
      .map((id) => id.trim())
      .filter(Boolean);
    return {
      entityType,
      ...(externalIds.length > 0 ? { externalIds } : {}),
      ...(since ? { since: new Date(since).toISOString() } : {}),
      ...(until ? { until: new Date(until).toISOString() } : {}),
    };
  };
  const changed = () => {
    setPreview(null);
    setDone(null);
  };
  return (
    <section class="card">
      <h2>Resync</h2>
      <p>Hands matching records to the webshop again, with all their fields as changed. Count them first, then confirm.</p>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void run({ ...variables(), dryRun: true }).then((r) => r.data && setPreview(r.data.resync.resynced));
        }}
      >
        <Select
          label="Entity type"
          value={entityType}
          options={TRACKED_ENTITY_TYPES}
          onChange={(v) => {
            if (v) setEntityType(v);
            changed();
          }}
        />
        <label>
          External ids
          <input value={ids} placeholder="all" onInput={(e) => (setIds(e.currentTarget.value), changed())} />
        </label>
        <label>
          Changed since
          <input type="datetime-local" value={since} onInput={(e) => (setSince(e.currentTarget.value), changed())} />
        </label>
        <label>
          Until
          <input type="datetime-local" value={until} onInput={(e) => (setUntil(e.currentTarget.value), changed())} />
        </label>
        <button type="submit" disabled={state.fetching}>
          Count
        </button>
      </form>
      <ErrorNote error={state.error} />
      {preview !== null && (
        <div role="status" data-testid="resync-preview">
          <p>
            {preview} {entityType} record(s) match.
          </p>
          <button
            type="button"
            class="danger"
            disabled={preview === 0 || state.fetching}
            onClick={() => {
              if (!confirm(`Resync ${preview} ${entityType} record(s)? They become pending again for the webshop.`)) return;
              void run({ ...variables(), dryRun: false }).then((r) => {
                if (!r.data) return;
                setPreview(null);
                setDone(r.data.resync.resynced);
                onDone();
              });
            }}
          >
            Resync {preview}
          </button>
        </div>
      )}
      {done !== null && <Notice>{done} record(s) resynced.</Notice>}
    </section>
  );
}
