import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { DIRECTIONS, ENTITY_TYPES } from '../api';
import { OperationalFeed } from '../components/OperationalFeed';
import { ErrorNote, Select, TableHead, time } from '../components/ui';
import {
  ROTATE_WEBHOOK_SECRET,
  TEST_WEBHOOK,
  CREATE_WEBHOOK,
  REMOVE_WEBHOOK,
  UPDATE_WEBHOOK,
  WEBHOOK_CONFIGS,
  type WebhookDeliveryStats,
} from '../webhooks-api';

type Draft = {
  url: string;
  entityType: (typeof ENTITY_TYPES)[number];
  direction: (typeof DIRECTIONS)[number];
  secret: string;
  active: boolean;
};

/** Grace periods offered when rotating a secret: the old secret keeps verifying this long. */
const GRACE: Record<string, number> = {
  '24 hours': 24 * 3600,
  '1 hour': 3600,
  '7 days': 7 * 24 * 3600,
  'none (old secret stops at once)': 0,
};
const GRACE_LABELS = Object.keys(GRACE);

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
  const [{ data, error }, reload] = useQuery({ query: WEBHOOK_CONFIGS });
  const [created, create] = useMutation(CREATE_WEBHOOK);
  const [updated, update] = useMutation(UPDATE_WEBHOOK);
  const [removed, remove] = useMutation(REMOVE_WEBHOOK);
  const [tested, test] = useMutation(TEST_WEBHOOK);
  const [rotated, rotate] = useMutation(ROTATE_WEBHOOK_SECRET);
  const [editing, setEditing] = useState<number | null>(null);
  const [testing, setTesting] = useState<number | null>(null);
  const [rotating, setRotating] = useState<number | null>(null);
  const [grace, setGrace] = useState(GRACE_LABELS[0]!);
  const [secret, setSecret] = useState<{ id: number; value: string; grace: string } | null>(null);
  const refresh = () => reload({ requestPolicy: 'network-only' });
  const result = tested.data?.testWebhook;
  const statsOf = (id: number) => data?.webhookDeliveryStats.find((s) => s.webhookId === id);
  return (
    <>
      <section class="card">
        <h2>Webhook configurations</h2>
        <ErrorNote error={error ?? created.error ?? updated.error ?? removed.error ?? tested.error ?? rotated.error} />
        {testing !== null &&
          (tested.fetching ? (
            <p class="muted">Sending a test event to #{testing}…</p>
          ) : (
            result && (
              <div class={`test-result ${result.outcome}`} role="status" data-testid="test-result">
                <p>
                  Test event to #{result.webhookId}: <strong>{result.outcome}</strong>
                  {result.statusCode !== null && <> · HTTP {result.statusCode}</>} · {result.durationMs} ms
                  {result.error && <> · {result.error}</>}
                </p>
                {result.responseBodyExcerpt && <pre class="excerpt">{result.responseBodyExcerpt}</pre>}
              </div>
            )
          ))}
        {rotating !== null && (
          <form
            class="inline rotate-form"
            onSubmit={(e) => {
              e.preventDefault();
              const id = rotating;
              void rotate({ id, graceSeconds: GRACE[grace] }).then((r) => {
                const value = r.data?.rotateWebhookSecret.newSecret;
                if (value) setSecret({ id, value, grace });
                setRotating(null);
                refresh();
              });
            }}
          >
            <strong>Rotate the secret of webhook #{rotating}</strong>
            <Select label="Grace period" value={grace} options={GRACE_LABELS} onChange={(v) => v && setGrace(v)} />
            <button type="submit" disabled={rotated.fetching}>
              Rotate now
            </button>
            <button type="button" class="secondary" onClick={() => setRotating(null)}>
              Cancel
            </button>
          </form>
        )}
        {secret && (
          <div class="secret-once" role="status">
            <p>
              New secret of webhook <strong>#{secret.id}</strong>. Copy it now: it is shown only this once. The old secret keeps verifying
              for {secret.grace}; deliveries carry both signatures meanwhile.
            </p>
            <code data-testid="new-webhook-secret">{secret.value}</code>
            <button type="button" class="secondary" onClick={() => setSecret(null)}>
              Done
            </button>
          </div>
        )}
        <table class="list">
          <TableHead columns={['#', 'URL', 'Entity', 'Direction', 'Health', 'Last hour', 'Last success', 'Updated', '']} />
          <tbody>
            {data?.webhookConfigs.map((c) =>
              editing === c.id ? (
                <tr key={c.id}>
                  <td colSpan={9}>
                    <WebhookForm
                      initial={{
                        url: c.url,
                        entityType: c.entityType,
                        direction: c.direction,
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
                  <td>
                    <span
                      class={`badge health ${c.health.state}`}
                      title={
                        c.health.autoDisabledAt
                          ? `disabled ${time(c.health.autoDisabledAt)} after failing since ${time(c.health.failingSince)}`
                          : c.health.failingSince
                            ? `failing since ${time(c.health.failingSince)}`
                            : undefined
                      }
                    >
                      {c.health.state}
                    </span>
                    {c.health.failingSince && (
                      <div class="muted" data-testid="failing-since">
                        failing since {time(c.health.failingSince)}
                      </div>
                    )}
                    {c.health.consecutiveFailedItems > 0 && <div class="muted">{c.health.consecutiveFailedItems} abandoned</div>}
                  </td>
                  <td data-testid="last-hour">
                    <LastHour stats={statsOf(c.id)} />
                  </td>
                  <td>{time(c.health.lastSuccessAt)}</td>
                  <td>{time(c.updatedAt)}</td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => {
                        setTesting(c.id);
                        void test({ id: c.id });
                      }}
                    >
                      Test
                    </button>
                    <button type="button" class="secondary" onClick={() => setRotating(c.id)}>
                      Rotate secret
                    </button>
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
      <OperationalFeed onEvent={refresh} />
    </>
  );
}

/** Success rate and latency of a configuration's attempts over the last hour (from the attempt log). */
function LastHour({ stats }: { stats: WebhookDeliveryStats | undefined }) {
  if (!stats || stats.attempts === 0) return <span class="muted">no attempts</span>;
  const rate = Math.round((stats.successRate ?? 0) * 100);
  return (
    <>
      <span class={rate < 90 ? 'rate low' : 'rate'}>{rate}% ok</span> of {stats.attempts}
      {stats.avgDurationMs !== null && (
        <div class="muted">
          avg {stats.avgDurationMs} ms · p95 {stats.p95DurationMs} ms
        </div>
      )}
    </>
  );
}
