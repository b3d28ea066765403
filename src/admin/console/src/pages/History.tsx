import type { CombinedError } from '@urql/core';
import { useQuery } from '@urql/preact';
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { JsonValue } from '../components/JsonValue';
import { ErrorNote, Select, TableHead, time } from '../components/ui';
import {
  HISTORY,
  HISTORY_ENTITY_TYPES,
  HISTORY_LIMIT,
  historyHref,
  isHistoryEntityType,
  type HistoryEntityType,
  type HistoryEntry,
} from '../history-api';

/** A record's change history (ADR 0031). Entity type and external id live in the URL, so a history can be linked. */
export function History() {
  const { query } = useLocation();
  const entityType = query['entityType'] ?? 'product';
  const externalId = query['externalId'] ?? '';
  return (
    <section class="card">
      <h2>History</h2>
      <p class="muted">
        Every accepted change of one record, newest first: who pushed it and each changed field before and after. For price items the
        external id is the product's.
      </p>
      {/* Keyed by the URL: a link to another record starts the form afresh. */}
      <HistoryForm key={`${entityType}\n${externalId}`} entityType={entityType} externalId={externalId} />
      {externalId && <HistoryTable entityType={entityType} externalId={externalId} />}
    </section>
  );
}

function HistoryForm(props: { entityType: string; externalId: string }) {
  const { route } = useLocation();
  const [entityType, setEntityType] = useState<HistoryEntityType>(isHistoryEntityType(props.entityType) ? props.entityType : 'product');
  const [externalId, setExternalId] = useState(props.externalId);
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        if (externalId.trim()) route(historyHref(entityType, externalId.trim()));
      }}
    >
      <Select label="Entity type" value={entityType} options={HISTORY_ENTITY_TYPES} onChange={(v) => v && setEntityType(v)} />
      <label>
        External id
        <input value={externalId} required onInput={(e) => setExternalId(e.currentTarget.value)} />
      </label>
      <button type="submit">Show history</button>
    </form>
  );
}

const notFound = (error: CombinedError | undefined) => error?.graphQLErrors.find((e) => e.extensions?.['code'] === 'NOT_FOUND');

function HistoryTable({ entityType, externalId }: { entityType: string; externalId: string }) {
  const [{ data, error, fetching }] = useQuery({
    query: HISTORY,
    variables: { entityType, externalId, limit: HISTORY_LIMIT },
  });
  const missing = notFound(error);
  if (missing) {
    return (
      <p class="muted" data-testid="history-not-found">
        {missing.message}: check the entity type and the external id.
      </p>
    );
  }
  if (error) return <ErrorNote error={error} />;
  if (!data) return fetching ? <p class="muted">Loading…</p> : null;
  const { entries } = data.history;
  const pricelists = entityType === 'price_item';
  return (
    <>
      <h3>
        {entityType} {externalId}
      </h3>
      {entries.length === 0 ? (
        <p class="muted" data-testid="history-empty">
          No changes recorded. Entries older than the retention period are deleted, and a resync writes none.
        </p>
      ) : (
        <table class="list history" data-testid="history-table">
          <TableHead columns={['Time', 'Revision', 'Action', 'Pushed by', ...(pricelists ? ['Pricelist'] : []), 'Changes (old → new)']} />
          <tbody>
            {entries.map((entry) => (
              <EntryRow key={`${entry.recordId}/${entry.revision}`} entry={entry} pricelists={pricelists} />
            ))}
          </tbody>
        </table>
      )}
      {entries.length === HISTORY_LIMIT && <p class="muted">The last {HISTORY_LIMIT} changes; older ones are not shown.</p>}
    </>
  );
}

function EntryRow({ entry, pricelists }: { entry: HistoryEntry; pricelists: boolean }) {
  return (
    <tr class="history-entry" data-revision={entry.revision} data-action={entry.action}>
      <td class="time" title={entry.changedAt}>
        {time(entry.changedAt)}
      </td>
      <td class="num">{entry.revision}</td>
      <td>{entry.action}</td>
      <td>{entry.tokenName ?? <span class="muted">—</span>}</td>
      {pricelists && <td>{entry.pricelistExternalId ?? '—'}</td>}
      <td>
        <ul class="changes">
          {entry.changes.map((change) => (
            <li key={change.field} data-field={change.field}>
              <code class="field">{change.field}</code> {/* A created record has no old values: "—", distinct from a JSON null. */}
              <span class="old">{entry.action === 'created' ? <span class="muted">—</span> : <JsonValue value={change.old} />}</span>
              {' → '}
              <span class="new">
                <JsonValue value={change.new} />
              </span>
            </li>
          ))}
        </ul>
      </td>
    </tr>
  );
}
