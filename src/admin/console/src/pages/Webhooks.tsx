import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { CREATE_WEBHOOK, DIRECTIONS, ENTITY_TYPES, REMOVE_WEBHOOK, UPDATE_WEBHOOK, WEBHOOK_CONFIGS, type WebhookConfig } from '../api';
import { ErrorNote, Select, TableHead, time } from '../components/ui';

type Draft = {
  url: string;
  entityType: (typeof ENTITY_TYPES)[number];
  direction: (typeof DIRECTIONS)[number];
  secret: string;
  active: boolean;
};

const EMPTY: Draft = { url: '', entityType: 'product', direction: 'to_webshop', secret: '', active: true };

/** Secrets are write-only: the API never returns them, so the form only ever sets a new one. */
function WebhookForm({
  initial,
  submitLabel,
  secretRequired,
  onSubmit,
  onCancel,
}: {
  initial: Draft;
  submitLabel: string;
  secretRequired: boolean;
  onSubmit: (draft: Draft) => Promise<boolean>;
  onCancel?: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  return (
    <form
      class="webhook-form"
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit(draft).then((ok) => ok && secretRequired && setDraft(EMPTY));
      }}
    >
      <label>
        URL
        <input
          type="url"
          required
          value={draft.url}
          onInput={(e) => set({ url: e.currentTarget.value })}
          placeholder="https://shop.example.com/hooks/erp"
        />
      </label>
      <Select label="Entity" value={draft.entityType} options={ENTITY_TYPES} onChange={(v) => v && set({ entityType: v })} />
      <Select label="Direction" value={draft.direction} options={DIRECTIONS} onChange={(v) => v && set({ direction: v })} />
      <label>
        Secret
        <input
          type="password"
          autoComplete="new-password"
          required={secretRequired}
          value={draft.secret}
          onInput={(e) => set({ secret: e.currentTarget.value })}
          placeholder={secretRequired ? 'signing secret' : 'leave empty to keep the current one'}
        />
      </label>
      <label class="check">
        <input type="checkbox" checked={draft.active} onChange={(e) => set({ active: e.currentTarget.checked })} /> Active
      </label>
      <button type="submit">{submitLabel}</button>
      {onCancel && (
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      )}
    </form>
  );
}

export function Webhooks() {
  const [{ data, error }, reload] = useQuery<{ webhookConfigs: WebhookConfig[] }>({ query: WEBHOOK_CONFIGS });
  const [created, create] = useMutation(CREATE_WEBHOOK);
  const [updated, update] = useMutation(UPDATE_WEBHOOK);
  const [removed, remove] = useMutation(REMOVE_WEBHOOK);
  const [editing, setEditing] = useState<number | null>(null);
  const refresh = () => reload({ requestPolicy: 'network-only' });
  return (
    <section class="card">
      <h2>Webhook configurations</h2>
      <ErrorNote error={error ?? created.error ?? updated.error ?? removed.error} />
      <table class="list">
        <TableHead columns={['#', 'URL', 'Entity', 'Direction', 'Active', 'Updated', '']} />
        <tbody>
          {data?.webhookConfigs.map((c) =>
            editing === c.id ? (
              <tr key={c.id}>
                <td colSpan={7}>
                  <WebhookForm
                    initial={{
                      url: c.url,
                      entityType: c.entityType as Draft['entityType'],
                      direction: c.direction as Draft['direction'],
                      secret: '',
                      active: c.active,
                    }}
                    submitLabel="Save"
                    secretRequired={false}
                    onCancel={() => setEditing(null)}
                    onSubmit={async (d) => {
                      const result = await update({
                        id: c.id,
                        url: d.url,
                        entityType: d.entityType,
                        direction: d.direction,
                        active: d.active,
                        secret: d.secret || null,
                      });
                      if (!result.error) setEditing(null);
                      return !result.error;
                    }}
                  />
                </td>
              </tr>
            ) : (
              <tr key={c.id} data-webhook-id={c.id}>
                <td>{c.id}</td>
                <td class="message">{c.url}</td>
                <td>{c.entityType}</td>
                <td>{c.direction}</td>
                <td>{c.active ? 'yes' : 'no'}</td>
                <td>{time(c.updatedAt)}</td>
                <td class="actions">
                  <button type="button" class="secondary" onClick={() => setEditing(c.id)}>
                    Edit
                  </button>
                  <button type="button" class="secondary" onClick={() => void update({ id: c.id, active: !c.active })}>
                    {c.active ? 'Disable' : 'Enable'}
                  </button>
                  <button
                    type="button"
                    class="danger"
                    onClick={() => {
                      if (confirm(`Remove the webhook to ${c.url}? Its queued deliveries will fail.`))
                        void remove({ id: c.id }).then(refresh);
                    }}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ),
          )}
        </tbody>
      </table>
      <h3>Add a configuration</h3>
      <WebhookForm
        initial={EMPTY}
        submitLabel="Add"
        secretRequired
        onSubmit={async (d) => {
          const result = await create(d);
          if (!result.error) refresh();
          return !result.error;
        }}
      />
    </section>
  );
}
