import { useMutation, useQuery } from '@urql/preact';
import { useLocation, useRoute } from 'preact-iso';
import { useState } from 'preact/hooks';
import { ENTITY_TYPES, FAILURE_STATUSES, oneOf, SOURCES } from '../api';
import { FAILURE, FAILURES, RESOLVE_FAILURE } from '../failures-api';
import { FailureDeliveries } from '../components/Deliveries';
import { ErrorNote, Notice, Pager, Select, TableHead, time } from '../components/ui';
import { historyHref, isHistoryEntityType } from '../history-api';

const PAGE_SIZE = 25;

type Filter = { status: string; entity: string; source: string; offset: number };

/** Filter state lives in the URL, so a filtered list can be linked and survives a reload. */
function useFilter(): [Filter, (change: Partial<Filter>) => void] {
  const { query, path, route } = useLocation();
  const filter: Filter = {
    status: query['status'] ?? 'open',
    entity: query['entity'] ?? '',
    source: query['source'] ?? '',
    offset: Number(query['offset'] ?? 0) || 0,
  };
  const update = (change: Partial<Filter>) => {
    const next = { ...filter, offset: 0, ...change };
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(next)) if (value !== '' && value !== 0) params.set(key, String(value));
    route(`${path}?${params}`);
  };
  return [filter, update];
}

/** A failure's external id, linked to the record's change history when it has one. */
function RecordLink({ entityType, externalId }: { entityType: string; externalId: string | null }) {
  if (!externalId) return <>—</>;
  if (!isHistoryEntityType(entityType)) return <>{externalId}</>;
  return (
    <a href={historyHref(entityType, externalId)} title={`Change history of ${entityType} ${externalId}`}>
      {externalId}
    </a>
  );
}

export function Failures() {
  const [filter, update] = useFilter();
  const [{ data, error, fetching }] = useQuery({
    query: FAILURES,
    variables: {
      status: oneOf(FAILURE_STATUSES, filter.status),
      entityType: oneOf(ENTITY_TYPES, filter.entity),
      source: oneOf(SOURCES, filter.source),
      limit: PAGE_SIZE,
      offset: filter.offset,
    },
  });
  return (
    <section class="card">
      <h2>Failures</h2>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Select
          label="Status"
          value={filter.status === 'all' ? 'all' : (oneOf(FAILURE_STATUSES, filter.status) ?? 'open')}
          options={[...FAILURE_STATUSES, 'all'] as const}
          onChange={(status) => update({ status })}
        />
        <Select
          label="Entity"
          value={oneOf(ENTITY_TYPES, filter.entity) ?? ''}
          options={ENTITY_TYPES}
          empty="any"
          onChange={(entity) => update({ entity })}
        />
        <Select
          label="Source"
          value={oneOf(SOURCES, filter.source) ?? ''}
          options={SOURCES}
          empty="any"
          onChange={(source) => update({ source })}
        />
      </form>
      <ErrorNote error={error} />
      <table class="list">
        <TableHead columns={['#', 'Reported', 'Entity', 'External id', 'Source', 'Message', 'Status']} />
        <tbody>
          {data?.failures.payload.map((f) => (
            <tr key={f.id} data-failure-id={f.id}>
              <td>
                <a href={`/admin/failures/${f.id}`}>{f.id}</a>
              </td>
              <td>{time(f.createdAt)}</td>
              <td>{f.entity_type}</td>
              <td>
                <RecordLink entityType={f.entity_type} externalId={f.external_id} />
              </td>
              <td>{f.source}</td>
              <td class="message">{f.error_message}</td>
              <td>
                <span class={`badge ${f.status}`}>{f.status}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.failures.meta.total === 0 && !fetching && <p class="muted">No failures match.</p>}
      {data && <Pager meta={data.failures.meta} onOffset={(offset) => update({ offset })} />}
    </section>
  );
}

export function FailureDetail() {
  const { params } = useRoute();
  const id = Number(params['id']);
  const [{ data, error }, reload] = useQuery({ query: FAILURE, variables: { id } });
  const [resolution, resolve] = useMutation(RESOLVE_FAILURE);
  const [note, setNote] = useState('');
  const failure = data?.failure;
  return (
    <section class="card">
      <p>
        <a href="/admin/failures">← Failures</a>
      </p>
      <ErrorNote error={error} />
      {failure && (
        <>
          <h2>
            Failure #{failure.id} <span class={`badge ${failure.status}`}>{failure.status}</span>
          </h2>
          <dl class="facts">
            <dt>Entity</dt>
            <dd>{failure.entity_type}</dd>
            <dt>External id</dt>
            <dd>
              <RecordLink entityType={failure.entity_type} externalId={failure.external_id} />
            </dd>
            <dt>Middleware id</dt>
            <dd>{failure.middleware_id ?? '—'}</dd>
            <dt>Reported by</dt>
            <dd>{failure.source}</dd>
            <dt>Reported</dt>
            <dd>{time(failure.createdAt)}</dd>
            <dt>Message</dt>
            <dd>{failure.error_message}</dd>
            {failure.status === 'resolved' && (
              <>
                <dt>Resolved</dt>
                <dd>
                  {time(failure.resolvedAt)} by {failure.resolvedBy ?? '—'}
                  {failure.resolutionNote ? `: ${failure.resolutionNote}` : ''}
                </dd>
              </>
            )}
          </dl>
          {failure.error_details.length > 0 && (
            <>
              <h3>Details</h3>
              <ul>
                {failure.error_details.map((d, i) => (
                  <li key={i}>
                    <code>{d.field}</code>: {d.message}
                  </li>
                ))}
              </ul>
            </>
          )}
          <h3>Raw data</h3>
          {failure.raw_data == null ? (
            <p class="muted">None was sent.</p>
          ) : (
            <pre class="raw">{JSON.stringify(failure.raw_data, null, 2)}</pre>
          )}
          <FailureDeliveries failureId={failure.id} />
          {failure.status === 'open' && (
            <form
              class="inline"
              onSubmit={(e) => {
                e.preventDefault();
                void resolve({ id, note: note.trim() || null }).then((r) => {
                  if (!r.error) reload({ requestPolicy: 'network-only' });
                });
              }}
            >
              <label>
                Note
                <input
                  value={note}
                  onInput={(e) => setNote(e.currentTarget.value)}
                  placeholder="What was done (optional)"
                  maxLength={1000}
                />
              </label>
              <button type="submit" disabled={resolution.fetching}>
                Resolve
              </button>
            </form>
          )}
          <ErrorNote error={resolution.error} />
          {resolution.data && <Notice>Resolved.</Notice>}
        </>
      )}
    </section>
  );
}
