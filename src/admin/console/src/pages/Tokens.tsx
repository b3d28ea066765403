import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { CHANNEL_ROLES, ROLE_HINTS, TOKEN_ROLES as ROLES } from '../api';
import { CHANNEL_NAMES } from '../channels-api';
import { API_TOKENS, CREATE_TOKEN, REVOKE_TOKEN } from '../tokens-api';
import { ErrorNote, Select, TableHead, time } from '../components/ui';

export function Tokens() {
  const [{ data, error }, reload] = useQuery({ query: API_TOKENS });
  const [channels] = useQuery({ query: CHANNEL_NAMES });
  const [created, create] = useMutation(CREATE_TOKEN);
  const [revoked, revoke] = useMutation(REVOKE_TOKEN);
  const [name, setName] = useState('');
  const [role, setRole] = useState<(typeof ROLES)[number]>('webshop');
  const [channel, setChannel] = useState('default');
  // Only webshop and viewer tokens read a channel of their own; the others read default.
  const bindsChannel = CHANNEL_ROLES.includes(role);
  const refresh = () => reload({ requestPolicy: 'network-only' });
  const fresh = created.data?.createApiToken;
  return (
    <section class="card">
      <h2>API tokens</h2>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void create({ name: name.trim(), role, channel: bindsChannel ? channel : null }).then((r) => {
            if (!r.error) {
              setName('');
              refresh();
            }
          });
        }}
      >
        <label>
          Name
          <input required value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="webshop-production" maxLength={100} />
        </label>
        <Select label="Role" value={role} options={ROLES} onChange={(r) => r && setRole(r)} />
        {bindsChannel && (
          <Select
            label="Channel"
            value={channel}
            options={channels.data?.channels.map((c) => c.name) ?? ['default']}
            onChange={(c) => c && setChannel(c)}
          />
        )}
        <button type="submit" disabled={created.fetching}>
          Create token
        </button>
      </form>
      <p class="muted">
        Role {role}: {ROLE_HINTS[role]}.
      </p>
      {fresh && (
        <div class="secret-once" role="status">
          <p>
            Token <strong>{fresh.apiToken.name}</strong> created (channel {fresh.apiToken.channel}). Copy it now: it is shown only this
            once.
          </p>
          <code data-testid="new-token">{fresh.token}</code>
        </div>
      )}
      <ErrorNote error={error ?? channels.error ?? created.error ?? revoked.error} />
      <table class="list">
        <TableHead columns={['#', 'Name', 'Role', 'Channel', 'Created', 'Last used', 'Revoked', '']} />
        <tbody>
          {data?.apiTokens.map((t) => (
            <tr key={t.id} data-token-name={t.name}>
              <td>{t.id}</td>
              <td>{t.name}</td>
              <td>{t.role}</td>
              <td>{t.channel}</td>
              <td>{time(t.createdAt)}</td>
              <td>{time(t.lastUsedAt)}</td>
              <td>{t.revokedAt ? time(t.revokedAt) : '—'}</td>
              <td>
                {!t.revokedAt && (
                  <button
                    type="button"
                    class="danger"
                    onClick={() => {
                      if (confirm(`Revoke ${t.name}? Clients using it are refused at once.`))
                        void revoke({ idOrName: String(t.id) }).then(refresh);
                    }}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
