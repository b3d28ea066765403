import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { CONFIRM_RESET, LOGIN, REGISTER, REQUEST_RESET } from '../accounts-api';
import { ErrorNote, Notice } from '../components/ui';
import { setSession } from '../session';

type Mode = 'login' | 'register' | 'forgot' | 'reset';

const TITLES: Record<Mode, string> = {
  login: 'Sign in',
  register: 'Register',
  forgot: 'Forgot password',
  reset: 'Set a new password',
};

/** REGISTRATION as the server told the page (console.plugin.ts); unknown under `vite` dev. */
const registrationMode = document.querySelector<HTMLMetaElement>('meta[name="sync-gateway-registration"]')?.content ?? null;

/** The command that makes the first account, with the console or without. */
export const ADMIN_CREATE = 'node bin/sync-gateway.js admin create --email you@example.com';

/** Sign-in, registration and password reset: the mutations anyone may call without a token. */
export function SignIn() {
  // A reset link carries its token: /admin/?reset=<token>
  const resetToken = new URLSearchParams(location.search).get('reset') ?? '';
  const [mode, setMode] = useState<Mode>(resetToken ? 'reset' : 'login');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState(resetToken);
  const [message, setMessage] = useState('');
  const [login, doLogin] = useMutation(LOGIN);
  const [registration, doRegister] = useMutation(REGISTER);
  const [request, doRequest] = useMutation(REQUEST_RESET);
  const [confirmation, doConfirm] = useMutation(CONFIRM_RESET);
  const switchTo = (next: Mode) => {
    setMode(next);
    setMessage('');
  };

  const submit = async () => {
    setMessage('');
    if (mode === 'login') {
      const r = await doLogin({ email, password });
      if (r.data) setSession(r.data.login);
    } else if (mode === 'register') {
      const r = await doRegister({ email, password });
      if (r.data) {
        setMessage(
          r.data.register.status === 'active'
            ? 'Account created. You can sign in now.'
            : 'Registered. An admin has to approve the account before you can sign in.',
        );
        setMode('login');
      }
    } else if (mode === 'forgot') {
      const r = await doRequest({ email });
      if (r.data) setMessage('If an account exists for this address, a reset token is on its way (valid for one hour).');
    } else {
      const r = await doConfirm({ token: token.trim(), password });
      if (r.data) {
        history.replaceState(null, '', '/admin/');
        setMessage('Password changed. Sign in with the new one.');
        setMode('login');
      }
    }
  };
  const pending = login.fetching || registration.fetching || request.fetching || confirmation.fetching;
  const error = { login: login.error, register: registration.error, forgot: request.error, reset: confirmation.error }[mode];

  return (
    <main class="sign-in">
      <h1>sync-gateway</h1>
      <section class="card">
        <h2>{TITLES[mode]}</h2>
        {message && <Notice>{message}</Notice>}
        <ErrorNote error={error} />
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          {mode === 'reset' && (
            <label>
              Reset token
              <input required value={token} onInput={(e) => setToken(e.currentTarget.value)} autoComplete="off" />
            </label>
          )}
          {mode !== 'reset' && (
            <label>
              Email
              <input type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} autoComplete="username" />
            </label>
          )}
          {mode !== 'forgot' && (
            <label>
              {mode === 'login' ? 'Password' : 'New password (12 characters or more)'}
              <input
                type="password"
                required
                minLength={mode === 'login' ? undefined : 12}
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
                autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
              />
            </label>
          )}
          <button type="submit" disabled={pending}>
            {TITLES[mode]}
          </button>
        </form>
        <nav class="modes">
          {(Object.keys(TITLES) as Mode[])
            // With REGISTRATION=closed the server refuses every registration: no link to a form that cannot work.
            .filter((m) => m !== mode && !(m === 'register' && registrationMode === 'closed'))
            .map((m) => (
              <button key={m} type="button" class="link" onClick={() => switchTo(m)}>
                {TITLES[m]}
              </button>
            ))}
        </nav>
        {mode === 'login' && (
          <p class="muted first-admin" data-testid="first-admin">
            No account yet? On the server, in the service's directory, run <code>{ADMIN_CREATE}</code>: it creates an active admin account
            and prints a password when you give none (it works while the service runs).
            {registrationMode === 'closed' ? ' Registration here is closed (REGISTRATION=closed).' : ''}
          </p>
        )}
      </section>
    </main>
  );
}
