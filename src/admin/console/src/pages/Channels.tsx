import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { CHANNEL_START_HINTS, CHANNEL_STARTS, TRACKED_ENTITY_TYPES } from '../api';
import { CHANNELS, CREATE_CHANNEL, DELETE_CHANNEL } from '../channels-api';
import { duration, ErrorNote, Notice, Select, TableHead, time } from '../components/ui';
import { ENTITY_LABELS } from './Pending';

/**
 * Channels (ADR 0045): consumers of the change feed, each with its own pending state, so a second
 * shop acknowledges without touching what is pending for the first. Channel default always exists.
 */
export function Channels() {
  const [{ data, error }, reload] = useQuery({ query: CHANNELS });
  const [created, create] = useMutation(CREATE_CHANNEL);
  const [deleted, remove] = useMutation(DELETE_CHANNEL);
  const [name, setName] = useState('');
  const [from, setFrom] = useState<(typeof CHANNEL_STARTS)[number]>('now');
  const refresh = () => reload({ requestPolicy: 'network-only' });
  const gone = deleted.data?.deleteChannel;
  return (
    <section class="card">
      <h2>Channels</h2>
      <p class="muted">
        Each channel has its own pending state: an acknowledgement on one channel changes nothing pending on another. A webshop or viewer
        token reads the channel it is bound to; channel default always exists.
      </p>
      <ErrorNote error={error ?? created.error ?? deleted.error} />
      {gone && (
        <Notice>
          Channel {gone.name} deleted{gone.tokens.length > 0 && <>; tokens revoked: {gone.tokens.join(', ')}</>}.
        </Notice>
      )}
      <table class="list channels" data-testid="channels-table">
        <TableHead columns={['Name', 'Started from', 'Created', 'Tokens', ...TRACKED_ENTITY_TYPES.map((t) => ENTITY_LABELS[t]), '']} />
        <tbody>
          {data?.channels.map((c) => (
            <tr key={c.name} data-channel={c.name}>
              <td class="name">{c.name}</td>
              <td>{c.startedFrom ?? '—'}</td>
              <td>{time(c.createdAt)}</td>
              <td data-testid="channel-tokens">{c.tokens.length > 0 ? c.tokens.join(', ') : <span class="muted">none</span>}</td>
              {TRACKED_ENTITY_TYPES.map((t) => {
                const lag = c.lag.find((l) => l.entityType === t);
                return (
                  <td key={t} class="num" data-testid={`lag-${t}`}>
                    {lag ? lag.pending : '—'}
                    {lag?.oldestPendingAgeSeconds != null && <div class="muted">oldest {duration(lag.oldestPendingAgeSeconds)}</div>}
                  </td>
                );
              })}
              <td>
                {c.name !== 'default' && (
                  <button
                    type="button"
                    class="danger"
                    onClick={() => {
                      const bound = c.tokens.length > 0 ? `: ${c.tokens.join(', ')}` : ' (none now)';
                      if (confirm(`Delete channel ${c.name}? Its pending state is dropped and the tokens bound to it are revoked${bound}.`))
                        void remove({ name: c.name }).then(refresh);
                    }}
                  >
                    Delete
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">Pending: records with changes the channel has not acknowledged; below, the age of the oldest such change.</p>
      <h3>Create a channel</h3>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void create({ name: name.trim(), from }).then((r) => {
            if (!r.error) {
              setName('');
              refresh();
            }
          });
        }}
      >
        <label>
          Name
          <input required value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="shop-two" maxLength={63} />
        </label>
        <Select label="Start from" value={from} options={CHANNEL_STARTS} onChange={(v) => v && setFrom(v)} />
        <button type="submit" disabled={created.fetching}>
          Create channel
        </button>
      </form>
      <ul class="muted">
        {CHANNEL_STARTS.map((s) => (
          <li key={s}>
            <strong>{s}</strong>: {CHANNEL_START_HINTS[s]}.
          </li>
        ))}
      </ul>
      <p class="muted">Names: lower-case letters, digits, - and _, up to 63 characters.</p>
      <h3>Connect a second shop</h3>
      <ol>
        <li>Create a channel for it here.</li>
        <li>
          On <a href="/admin/tokens">API tokens</a>, create a webshop token with that channel.
        </li>
        <li>Hand the token to the shop: it lists and acknowledges its own channel's changes, and the other shops' stay as they are.</li>
      </ol>
    </section>
  );
}
