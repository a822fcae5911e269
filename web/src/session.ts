import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { api, useCsrfToken } from './api.js';

/** The signed-in session: its account and the token unsafe requests carry. */
export interface Session {
  accountId: string;
  csrfToken: string;
  expiresAt: string;
}

export const SessionContext = createContext<{
  session: Session | null;
  setSession: (session: Session | null) => void;
}>({ session: null, setSession: () => {} });

export function useSession() {
  return useContext(SessionContext);
}

/** The session of the browser's cookie, or null when there is none (the key itself is never kept here). */
export async function currentSession(): Promise<Session | null> {
  try {
    const session = await api.get<Session>('/app/session');
    useCsrfToken(session.csrfToken);
    return session;
  } catch {
    return null;
  }
}

export async function signIn(apiKey: string): Promise<Session> {
  const session = await api.post<Session>('/app/session', { apiKey });
  useCsrfToken(session.csrfToken);
  return session;
}

export async function signOut(): Promise<void> {
  await api.delete('/app/session').catch(() => {});
  useCsrfToken(null);
}
