import { useMutation, useQuery } from '@urql/preact';
import { ACCOUNTS, APPROVE_ACCOUNT } from '../accounts-api';
import { ErrorNote, TableHead, time } from '../components/ui';

export function Accounts() {
  const [{ data, error }, reload] = useQuery({ query: ACCOUNTS });
  const [approval, approve] = useMutation(APPROVE_ACCOUNT);
  const pending = data?.adminAccounts.filter((a) => a.status === 'pending') ?? [];
  return (
    <section class="card">
      <h2>Admin accounts</h2>
      <ErrorNote error={error ?? approval.error} />
      <p class="muted">
        {pending.length === 0 ? 'No registration is waiting for approval.' : `${pending.length} registration(s) waiting for approval.`}
      </p>
      <table class="list">
        <TableHead columns={['#', 'Email', 'Status', 'Registered', 'Approved', 'Last sign-in', '']} />
        <tbody>
          {data?.adminAccounts.map((a) => (
            <tr key={a.id} data-account-email={a.email}>
              <td>{a.id}</td>
              <td>{a.email}</td>
              <td>
                <span class={`badge ${a.status}`}>{a.status}</span>
              </td>
              <td>{time(a.createdAt)}</td>
              <td>{a.approvedAt ? `${time(a.approvedAt)} by ${a.approvedBy ?? '—'}` : '—'}</td>
              <td>{time(a.lastLoginAt)}</td>
              <td>
                {a.status === 'pending' && (
                  <button type="button" onClick={() => void approve({ id: a.id }).then(() => reload({ requestPolicy: 'network-only' }))}>
                    Approve
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
