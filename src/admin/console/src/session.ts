/**
 * The signed-in admin session. Kept in sessionStorage: it survives a reload but not the tab, and
 * the token never reaches a cookie (the API takes it as a bearer token only).
 */
export type Session = { token: string; email: string; expiresAt: string };

const KEY = 'sync-gateway.session';
const listeners = new Set<(session: Session | null) => void>();

export function currentSession(): Session | null {
  const stored = sessionStorage.getItem(KEY);
  if (!stored) return null;
  const session = JSON.parse(stored) as Session;
  return Date.parse(session.expiresAt) > Date.now() ? session : null;
}

export function setSession(session: Session | null): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
  for (const listener of listeners) listener(session);
}

export function onSessionChange(listener: (session: Session | null) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
