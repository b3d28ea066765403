import { useMutation } from '@urql/preact';
import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { LOGOUT } from '../accounts-api';
import { setSession, type Session } from '../session';

const NAV: Array<[string, string]> = [
  ['/admin/', 'Overview'],
  ['/admin/pending', 'Pending'],
  ['/admin/failures', 'Failures'],
  ['/admin/queue', 'Queue'],
  ['/admin/webhooks', 'Webhooks'],
  ['/admin/reconciliation', 'Reconciliation'],
  ['/admin/history', 'History'],
  ['/admin/channels', 'Channels'],
  ['/admin/tokens', 'API tokens'],
  ['/admin/accounts', 'Accounts'],
];

export function Layout({ session, children }: { session: Session; children: ComponentChildren }) {
  const { path } = useLocation();
  const [, logout] = useMutation(LOGOUT);
  const current = (href: string) => (href === '/admin/' ? path === '/admin/' || path === '/admin' : path.startsWith(href));
  return (
    <>
      <header class="top">
        <strong>sync-gateway</strong>
        <nav>
          {NAV.map(([href, label]) => (
            <a key={href} href={href} aria-current={current(href) ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="who">
          {session.email}
          <button type="button" class="link" onClick={() => void logout({}).finally(() => setSession(null))}>
            Sign out
          </button>
        </span>
      </header>
      <main>{children}</main>
    </>
  );
}
